import { createInterface } from 'node:readline/promises';
import { AnsweredElsewhereError, type ApprovalAnswer, type UserSurface } from '@legion-collective/core';
import { styleFor } from './render/style.js';

export type ApproveMode = 'prompt' | 'auto' | 'deny';

/** The medium a terminal user's decisions are recorded with. */
export const TERMINAL_MEDIUM = 'terminal';

/**
 * The terminal as a surface that decides approvals. `auto` and `deny` answer
 * without asking; `prompt` asks on the terminal, and without one gives no
 * surface at all, so the run pauses durably and `legion approve` answers it later.
 */
export function approvalSurface(mode: ApproveMode, terminal: { interactive: boolean; input: NodeJS.ReadStream; output: NodeJS.WriteStream }): UserSurface | undefined {
  if (mode === 'auto') return { medium: TERMINAL_MEDIUM, approve: async (requests) => requests.map((request) => ({ id: request.id, decision: 'approve' })) };
  if (mode === 'deny') {
    return {
      medium: TERMINAL_MEDIUM,
      approve: async (requests) =>
        requests.map((request) => ({ id: request.id, decision: 'reject', reason: 'this run does not allow it (--approve deny); find another way or say what you need' })),
    };
  }
  if (!terminal.interactive) return undefined;
  return { medium: TERMINAL_MEDIUM, approve: terminalPrompt(terminal) };
}

function terminalPrompt(terminal: { input: NodeJS.ReadStream; output: NodeJS.WriteStream }): NonNullable<UserSurface['approve']> {
  const style = styleFor(terminal.output);
  return async (requests, { signal }) => {
    const readline = createInterface({ input: terminal.input, output: terminal.output });
    const answers: ApprovalAnswer[] = [];
    try {
      for (const request of requests) {
        terminal.output.write(`\n${style.yellow('approval needed')} ${style.bold(request.requester)} wants to run ${style.bold(request.tool)} ${style.dim(JSON.stringify(request.input))}\n  ${style.dim(request.reason)}\n`);
        const choice = (await readline.question('  [y]es, [n]o, [a]lways for this agent and tool? ', { signal })).trim().toLowerCase();
        if (choice === 'y' || choice === 'yes') answers.push({ id: request.id, decision: 'approve' });
        else if (choice === 'a' || choice === 'always') answers.push({ id: request.id, decision: 'approve', always: true });
        else {
          const reason = (await readline.question('  reason (shown to the agent): ', { signal })).trim();
          answers.push({ id: request.id, decision: 'reject', ...(reason ? { reason } : {}) });
        }
      }
    } catch (error) {
      // Decided on another surface (a browser, another terminal): say so rather than leave the prompt hanging.
      if (signal.reason instanceof AnsweredElsewhereError) terminal.output.write(`\n  ${style.dim(`answered on ${signal.reason.medium}`)}\n`);
      throw error;
    } finally {
      readline.close();
    }
    return answers;
  };
}
