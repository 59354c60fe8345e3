/** What one `@legion` chat request asks for, from its slash command and text. */
export type ChatIntent =
  | { kind: 'send'; to?: string | undefined; message: string }
  /** `/to <agent>` alone: this chat's next messages go to that agent (as the REPL's `/to`). */
  | { kind: 'switch'; to: string }
  | { kind: 'agents' }
  | { kind: 'sessions' }
  | { kind: 'new'; title?: string | undefined }
  | { kind: 'approvals' }
  | { kind: 'cost' }
  | { kind: 'invalid'; problem: string };

export const SLASH_COMMANDS = ['agents', 'to', 'sessions', 'new', 'approvals', 'cost'] as const;

/**
 * Reads a request: VS Code hands the slash command apart from the prompt
 * (`/to developer fix it` → command `to`, prompt `developer fix it`); a prompt
 * typed as `/to …` without the editor recognizing it is read the same way.
 */
export function parseChatRequest(command: string | undefined, prompt: string): ChatIntent {
  let name = command;
  // `@legion` typed again after the sticky one the input keeps is the same participant, not text for the agent.
  let text = prompt.trim().replace(/^(?:@legion\b\s*)+/, '');
  if (name === undefined) {
    const typed = /^\/([a-z]+)(?:\s+|$)([\s\S]*)$/.exec(text);
    if (typed && (SLASH_COMMANDS as readonly string[]).includes(typed[1]!)) {
      name = typed[1];
      text = typed[2]!.trim();
    }
  }
  switch (name) {
    case undefined:
      if (text.length === 0)
        return { kind: 'invalid', problem: 'The message is empty: type what the collective should do, or /to <agent> <message>.' };
      return { kind: 'send', message: text };
    case 'to': {
      const match = /^@?([A-Za-z0-9_.-]+)(?:\s+([\s\S]+))?$/.exec(text);
      if (!match)
        return {
          kind: 'invalid',
          problem:
            'Usage: /to <agent> [message]: with a message, sends it to that agent (for example /to developer add a health check); alone, this chat talks to that agent from then on.',
        };
      return match[2] === undefined ? { kind: 'switch', to: match[1]! } : { kind: 'send', to: match[1], message: match[2].trim() };
    }
    case 'agents':
    case 'sessions':
    case 'approvals':
    case 'cost':
      return { kind: name };
    case 'new':
      return { kind: 'new', ...(text ? { title: text } : {}) };
    default:
      return { kind: 'invalid', problem: `Unknown command /${name}: use one of ${SLASH_COMMANDS.map((slash) => `/${slash}`).join(', ')}.` };
  }
}
