import { z } from 'zod';
import type { Session, SessionStore } from '../engine/index.js';
import { LegionError, describeZodError } from '../kernel/index.js';

/** Which session a surface works in: a named one, a new one, or (neither) the workspace's latest. */
export const SessionChoiceSchema = z
  .object({
    session: z.string().min(1, 'the session id is empty: give one from `legion sessions`, or leave it out for the latest').optional(),
    newSession: z.boolean().optional(),
    /** The new session's title (with `newSession`). */
    title: z.string().min(1).optional(),
  })
  .strict();
export type SessionChoice = z.infer<typeof SessionChoiceSchema>;

/**
 * The session a choice names: every surface picks it the same way (the REPL's `--session`/`--new`,
 * `legion run`'s, an MCP call's `session`, the chat's `/new`). Without a choice it is the one the
 * workspace last worked in, created on a fresh workspace.
 */
export async function chooseSession(sessions: SessionStore, choice: SessionChoice = {}): Promise<Session> {
  const parsed = SessionChoiceSchema.safeParse(choice);
  if (!parsed.success) {
    const { field, problem, fix } = describeZodError(parsed.error, choice);
    throw new LegionError('usage', `The session choice is not usable: "${field}" ${problem}; ${fix}.`);
  }
  const { session, newSession, title } = parsed.data;
  if (newSession && session !== undefined) throw new LegionError('usage', 'Use either a session id or a new session, not both.');
  if (title !== undefined && !newSession)
    throw new LegionError('usage', 'A title is given to a new session: ask for a new session with it (or rename the session).');
  if (newSession) return sessions.create(title !== undefined ? { title } : {});
  if (session !== undefined) return sessions.get(session);
  return sessions.resumeOrCreate();
}
