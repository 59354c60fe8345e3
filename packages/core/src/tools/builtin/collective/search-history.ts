import { z } from 'zod';
import type { Message } from '../../../kernel/index.js';
import { defineTool, type Tool } from '../../tool.js';
import type { CollectiveToolsOptions } from './collective-tool-options.js';
import { speaker } from './list-conversations.js';
import { lookupSession } from './session-lookup.js';

const DEFAULT_RESULTS = 20;
const MAX_RESULTS = 200;
/** Messages read from the end of each conversation: the search stays bounded on very long histories. */
export const MAX_MESSAGES_SCANNED = 5000;
const SNIPPET_SIDE = 80;

interface Hit {
  at: string;
  line: string;
}

/** Finds text in the conversations of a session, newest first. */
export function createSearchHistoryTool(options: Pick<CollectiveToolsOptions, 'sessions'>): Tool {
  return defineTool({
    name: 'search_history',
    description:
      "Search the messages, tool calls and tool results of the current session's conversations (or of session_id) for text, " +
      'a case-insensitive substring by default or a JavaScript regular expression with regex: true. ' +
      `Returns matches newest first with time, conversation, author and a snippet; at most max_results (default ${DEFAULT_RESULTS}). ` +
      `Only the latest ${MAX_MESSAGES_SCANNED} messages of each conversation are searched. Use it to recover details lost from your context.`,
    input: () =>
      z.object({
        query: z.string().min(1).describe('Text (or regular expression) to find.'),
        regex: z.boolean().optional().describe('Treat query as a regular expression.'),
        case_sensitive: z.boolean().optional().describe('Match case exactly (default: ignore case).'),
        conversation: z.string().min(1).optional().describe('Only this conversation id (see list_conversations).'),
        session_id: z.string().min(1).optional().describe('Another session (see list_sessions); default: the current one.'),
        max_results: z
          .number()
          .int()
          .positive()
          .max(MAX_RESULTS)
          .optional()
          .describe(`Cap on matches returned (default ${DEFAULT_RESULTS}).`),
      }),
    concurrent: true,
    effect: 'read',
    async execute(input, context) {
      const flags = input.case_sensitive ? '' : 'i';
      let pattern: RegExp;
      try {
        pattern = new RegExp(input.regex ? input.query : escapeRegExp(input.query), flags);
      } catch (error) {
        return { status: 'error', error: `Invalid regular expression: ${(error as Error).message}` };
      }
      const found = await lookupSession(options.sessions, context, input.session_id);
      if ('error' in found) return { status: 'error', error: found.error };
      const { session } = found;
      const refs = (await session.listConversations()).filter((ref) => !input.conversation || ref.conversationId === input.conversation);
      if (input.conversation && refs.length === 0)
        return { status: 'error', error: `No conversation "${input.conversation}" in session ${session.id}; see list_conversations.` };
      const hits: Hit[] = [];
      for (const ref of refs) {
        for (const message of await session.conversation(ref).recent(MAX_MESSAGES_SCANNED)) {
          const snippet = firstMatch(message, pattern);
          if (snippet)
            hits.push({
              at: message.at,
              line: `${message.at}  ${ref.conversationId}  ${speaker(message, ref.initiator, ref.responder)}: ${snippet}`,
            });
        }
      }
      if (hits.length === 0)
        return {
          status: 'success',
          data: `No matches for "${input.query}" in ${refs.length} conversation${refs.length === 1 ? '' : 's'} of session ${session.id}.`,
        };
      hits.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
      const limit = input.max_results ?? DEFAULT_RESULTS;
      const more = hits.length > limit ? `\n(${hits.length - limit} older matches not shown; narrow the query or raise max_results)` : '';
      return {
        status: 'success',
        data: `${hits.length} match${hits.length === 1 ? '' : 'es'}, newest first:\n${hits
          .slice(0, limit)
          .map((hit) => hit.line)
          .join('\n')}${more}`,
      };
    },
  });
}

/** The first matching block of a message as a one-line snippet around the match. */
function firstMatch(message: Message, pattern: RegExp): string | undefined {
  for (const block of message.content) {
    const [label, text] =
      block.type === 'text'
        ? ['', block.text]
        : block.type === 'tool_use'
          ? [`[${block.name}] `, JSON.stringify(block.input)]
          : ['[result] ', block.content];
    const match = pattern.exec(text);
    if (!match) continue;
    const start = Math.max(0, match.index - SNIPPET_SIDE);
    const end = Math.min(text.length, match.index + match[0].length + SNIPPET_SIDE);
    const snippet = text.slice(start, end).replace(/\s+/g, ' ').trim();
    return `${label}${start > 0 ? '…' : ''}${snippet}${end < text.length ? '…' : ''}`;
  }
  return undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
