import { z } from 'zod';
import { textOf, toolResultsOf, toolUsesOf, type Message } from '../../../kernel/index.js';
import { defineTool, type Tool } from '../../tool.js';
import type { CollectiveToolsOptions } from './collective-tool-options.js';
import { lookupSession } from './session-lookup.js';

const MAX_LISTED = 200;
const PREVIEW_CHARS = 80;

/** The conversations of a session, with each one's latest message in brief. */
export function createListConversationsTool(options: Pick<CollectiveToolsOptions, 'sessions'>): Tool {
  return defineTool({
    name: 'list_conversations',
    description:
      'List the conversations of the current session (or of session_id): each is directional, <initiator>__<responder>[__<name>], ' +
      'shown with the time and a preview of its latest message. Search their contents with search_history.',
    input: () =>
      z.object({ session_id: z.string().min(1).optional().describe('Another session (see list_sessions); default: the current one.') }),
    concurrent: true,
    effect: 'read',
    async execute(input, context) {
      const found = await lookupSession(options.sessions, context, input.session_id);
      if ('error' in found) return { status: 'error', error: found.error };
      const { session } = found;
      const refs = await session.listConversations();
      if (refs.length === 0) return { status: 'success', data: `Session ${session.id} has no conversations yet.` };
      const lines: string[] = [];
      for (const ref of refs.slice(0, MAX_LISTED)) {
        // Only the last line of each log is read, so this stays cheap on long histories.
        const last = (await session.conversation(ref).recent(1))[0];
        lines.push(
          last
            ? `${ref.conversationId}  ${last.at}  ${speaker(last, ref.initiator, ref.responder)}: ${preview(last)}`
            : `${ref.conversationId}  (no messages)`,
        );
      }
      const more = refs.length > MAX_LISTED ? `\n(${refs.length - MAX_LISTED} more not shown)` : '';
      return {
        status: 'success',
        data: `${refs.length} conversation${refs.length === 1 ? '' : 's'} in session ${session.id}:\n${lines.join('\n')}${more}`,
      };
    },
  });
}

/** Who wrote a message: tool results travel as `user` messages but are not the initiator's words. */
export function speaker(message: Message, initiator: string, responder: string): string {
  if (message.role === 'assistant') return responder;
  return toolResultsOf(message).length > 0 && textOf(message) === '' ? 'tool results' : initiator;
}

function preview(message: Message): string {
  const text =
    textOf(message) ||
    toolUsesOf(message)
      .map((use) => `[${use.name}]`)
      .join(' ') ||
    toolResultsOf(message)
      .map((result) => result.content)
      .join(' ');
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
}
