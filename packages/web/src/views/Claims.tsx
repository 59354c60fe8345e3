import { useEffect } from 'preact/hooks';
import type { ClaimConflict, FileClaim } from '../api/wire.js';
import { visibleText } from './visible-text.js';

/** How often the open view reads the claims again: turns in other processes (a terminal) claim files without an event here. */
const POLL_MS = 2_000;

/** One refused write, as a line: who was refused, which file, who holds it and what it is doing. */
export function conflictLine(conflict: ClaimConflict): string {
  return `${conflict.participantId}'s ${conflict.tool} on ${conflict.path} did not happen: ${conflict.holder.participantId} is changing it (${conflict.holder.doing})`;
}

/** The latest refused writes, above the conversation: what the agents were told, for the human. */
export function ConflictNotice({ conflicts, onDismiss }: { conflicts: ClaimConflict[]; onDismiss: () => void }) {
  if (conflicts.length === 0) return null;
  return (
    <div class="claim-notice banner" data-testid="claim-conflicts" role="status">
      <ul>
        {conflicts.map((conflict) => (
          <li key={`${conflict.seq}`} data-testid="claim-conflict">
            ⚠ {visibleText(conflictLine(conflict))}
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
  conflicts,
  onRefresh,
  onRelease,
}: {
  claims: FileClaim[];
  conflicts: ClaimConflict[];
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
                <td>{visibleText(claim.participantId)}</td>
                <td>{visibleText(claim.doing)}</td>
                <td>{claim.since}</td>
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
      {conflicts.length > 0 && (
        <>
          <h3>Refused writes</h3>
          <ul data-testid="claims-conflicts">
            {conflicts.map((conflict) => (
              <li key={`${conflict.seq}`}>{visibleText(conflictLine(conflict))}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
