import { join } from 'node:path';
import { isValidIdPart } from '../../collective/participant-id.js';
import { WorkspacePaths } from '../../storage/workspace-paths.js';
import type { ToolContext } from '../tool.js';

/** Session ids are made by the SessionStore; anything else must not become a path. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export type AgentSessionFile = { ok: true; path: string } | { ok: false; error: string };

/**
 * The calling agent's own file in the session folder:
 * `.legion/sessions/<session>/<folder>/<agent>.json`. Per agent and per session,
 * so that agents never see each other's notes and a new session starts clean.
 */
export function agentSessionFile(context: Pick<ToolContext, 'workspaceRoot' | 'session' | 'callerId'>, folder: string): AgentSessionFile {
  if (!context.workspaceRoot) return { ok: false, error: 'No workspace: this tool keeps its state in the session folder.' };
  if (!SESSION_ID.test(context.session.id)) return { ok: false, error: `Session id "${context.session.id}" cannot name a folder.` };
  if (!isValidIdPart(context.callerId)) return { ok: false, error: `Participant id "${context.callerId}" cannot name a file.` };
  const sessionDir = new WorkspacePaths(context.workspaceRoot).sessionDir(context.session.id);
  return { ok: true, path: join(sessionDir, folder, `${context.callerId}.json`) };
}
