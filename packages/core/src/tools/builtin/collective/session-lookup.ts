import type { SessionHistory } from '../../../session/index.js';
import { errorMessage } from '../../../kernel/index.js';
import type { ToolContext } from '../../tool.js';
import type { SessionDirectory } from './collective-tool-options.js';

/** The session a history tool looks into: the caller's own, or the one it named. */
export async function lookupSession(
  sessions: SessionDirectory,
  context: Pick<ToolContext, 'session'>,
  sessionId: string | undefined,
): Promise<{ session: SessionHistory } | { error: string }> {
  try {
    return { session: await sessions.get(sessionId ?? context.session.id) };
  } catch (error) {
    return { error: `${errorMessage(error)} Use list_sessions to see the ids.` };
  }
}
