import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { CallChannel, ElicitAnswer } from './active-calls.js';
import { progressOf } from './progress.js';

/** How long a person at the MCP client has for one form; past it the request stays pending (durably, for approvals). */
export const ELICIT_TIMEOUT_MS = 15 * 60_000;

/** What a running tool call can do back to its client: progress, and elicitation when the client declared it. */
export function callChannel(server: McpServer, context: ServerContext): CallChannel {
  // Form mode: declared as `form`, or (clients written before modes) as an empty `elicitation` object.
  const elicitation = server.server.getClientCapabilities()?.elicitation;
  const supportsElicitation = elicitation !== undefined && (elicitation.form !== undefined || Object.keys(elicitation).length === 0);
  return {
    progress: progressOf(context),
    ...(supportsElicitation
      ? {
          elicit: async (request, signal): Promise<ElicitAnswer> => {
            const result = await context.mcpReq.elicitInput({ mode: 'form', ...request }, { signal, timeout: ELICIT_TIMEOUT_MS });
            if (result.action !== 'accept') return { action: result.action };
            return { action: 'accept', content: { ...(result.content ?? {}) } };
          },
        }
      : {}),
  };
}
