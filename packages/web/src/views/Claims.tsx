import { useEffect } from 'preact/hooks';
import type { ClaimConflict, FileClaim, RefusedWrite } from '../api/wire.js';
import { formatTime } from './format.js';
import { displayName, type Person } from './names.js';
import { visibleText } from './visible-text.js';

/** How often the open view reads the claims again: turns in other processes (a terminal) claim files without an event here. */
const POLL_MS = 2_000;

/** One refused write, as a line: who was refused, which file, who holds it and what it is doing. */
export function conflictLine(
  conflict: Pick<RefusedWrite, 'participantId' | 'tool' | 'path' | 'holder'>,
  participants: readonly Person[],
  tense: 'now' | 'then' = 'now',
): string {
  const holder = displayName(participants, conflict.holder.participantId);
  return `${displayName(participants, conflict.participantId)}'s ${conflict.tool} on ${conflict.path} did not happen: ${holder} ${tense === 'now' ? 'is' : 'was'} changing it (${conflict.holder.doing})`;
}

/** The latest refused writes, above the conversation: what the agents were told, for the human. */
export function ConflictNotice({
  conflicts,
  participants,
  onDismiss,
}: {
  conflicts: ClaimConflict[];
  participants: readonly Person[];
  onDismiss: () => void;
}) {
  if (conflicts.length === 0) return null;
  return (
    <div class="claim-notice banner" data-testid="claim-conflicts" role="status">
      <ul>
        {conflicts.map((conflict) => (
          <li key={`${conflict.seq}`} data-testid="claim-conflict">
            ⚠ {visibleText(conflictLine(conflict, participants))}
          </li>
        ))}
      </ul>
      <button type="button" class="link" onClick={onDismiss} data-testid="claim-conflicts-dismiss">
        Dismiss
      </button>
    </div>
  );
}

/** The files running turns claimed, with a Release button each; read again while the view is open. */
export function Claims({
  claims,
  refusedWrites,
  participants,
  onRefresh,
  onRelease,
}: {
  claims: FileClaim[];
  /** The session's, oldest first: shown newest first. */
  refusedWrites: RefusedWrite[];
  participants: readonly Person[];
  onRefresh: () => void;
  onRelease: (path: string) => void;
}) {
  useEffect(() => {
    onRefresh();
    const timer = setInterval(onRefresh, POLL_MS);
    return () => clearInterval(timer);
  }, []);
  return (
    <section class="panel" data-testid="view-claims">
      <h2>Claims</h2>
      <p class="muted">
        A file an agent's turn writes is claimed until the turn ends: another agent's write to it does not happen. Release one to let others
        write it now (the holder's next write claims it again).
      </p>
      {claims.length === 0 ? (
        <p class="muted" data-testid="claims-empty">
          No file is claimed: no running turn holds one.
        </p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Path</th>
              <th>Holder</th>
              <th>Doing</th>
              <th>Since</th>
              <th>Session</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {claims.map((claim) => (
              <tr key={claim.path} data-testid={`claim-${claim.path}`}>
                <th>{visibleText(claim.path)}</th>
                <td>{visibleText(displayName(participants, claim.participantId))}</td>
                <td>{visibleText(claim.doing)}</td>
                <td>{formatTime(claim.since)}</td>
                <td class="muted">{visibleText(claim.sessionId)}</td>
                <td>
                  <button type="button" onClick={() => onRelease(claim.path)} data-testid={`claim-release-${claim.path}`}>
                    Release
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Refused writes in this session</h3>
      {refusedWrites.length === 0 ? (
        <p class="muted" data-testid="claims-conflicts-none">
          None: no agent's write met a file another turn held.
        </p>
      ) : (
        <ul data-testid="claims-conflicts">
          {[...refusedWrites].reverse().map((refused) => (
            <li key={refused.id} data-testid={`refused-write-${refused.id}`}>
              <span class="muted">{formatTime(refused.at)}</span> {visibleText(conflictLine(refused, participants, 'then'))}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
