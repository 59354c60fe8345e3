import type { Participant } from '../team/index.js';
import type { AuthEngine } from './AuthEngine.js';
import { FILE_READ_SUBJECT } from './AuthEngine.js';
import type { PolicySubject } from './call-facts.js';

/**
 * Whether a tool that enumerates files (`file_list`, `file_glob`, `file_grep`)
 * may show, or look inside, one workspace-relative entry. The one judgment
 * every enumerating tool uses, for agents and users alike, so that `deny`
 * holds by every route:
 * - reading it is not denied: for an agent, `file_read` of it would run
 *   without asking (what it may read anyway); for a user, it is not denied (a
 *   user's own read needs no approval);
 * - the enumerating tool's own path rules do not deny it: a deny on
 *   `secret/**` for `file_grep` keeps a grep of `.` out of `secret/` too,
 *   not only a grep that names `secret/`.
 * Without a participant (the program's own call) everything is shown.
 */
export type EntryVisibility = (path: string, tool: PolicySubject) => boolean;

export function entryVisibility(auth: AuthEngine, participant: Participant | undefined): EntryVisibility {
  if (!participant) return () => true;
  // A search of a large tree asks about each entry, often twice (as spelled and where it leads).
  const known = new Map<string, boolean>();
  return (path, tool) => {
    const key = `${tool.name}\u0000${path}`;
    let shown = known.get(key);
    if (shown === undefined) {
      shown =
        readable(auth, participant, path) &&
        (tool.name === FILE_READ_SUBJECT.name || auth.evaluate({ participant, tool, input: { path } }).mode !== 'deny');
      known.set(key, shown);
    }
    return shown;
  };
}

function readable(auth: AuthEngine, participant: Participant, path: string): boolean {
  const mode = auth.evaluate({ participant, tool: FILE_READ_SUBJECT, input: { path } }).mode;
  return participant.type === 'agent' ? mode === 'auto' : mode !== 'deny';
}
