import { isValidIdPart } from '../../team/index.js';
import type { ToolContext } from '../tool.js';

/** Session ids are made by the backend; anything else must not name a record. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Why the calling agent cannot keep its own state (todos, scratchbook) in this
 * session, or undefined when it can. The state is per agent and per session
 * (the session's backend keeps it), so that agents never see each other's
 * notes and a new session starts clean.
 */
export function checkAgentStateKey(context: Pick<ToolContext, 'workspaceRoot' | 'session' | 'callerId'>): string | undefined {
  if (!context.workspaceRoot) return 'No workspace: this tool keeps its state in the session.';
  if (!SESSION_ID.test(context.session.id)) return `Session id "${context.session.id}" cannot name a record.`;
  if (!isValidIdPart(context.callerId)) return `Participant id "${context.callerId}" cannot name a record.`;
  return undefined;
}
