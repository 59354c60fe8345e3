import type { SessionSummary, Totals, UsageView } from '../api/wire.js';
import { formatCost, formatTokens, tokensOf } from './format.js';
import { visibleText } from './visible-text.js';
import type { Person } from './names.js';
import { Who } from './Who.js';

function TotalsCells({ totals, testid }: { totals: Totals; testid: string }) {
  return (
    <>
      <td data-testid={`${testid}-tokens`}>{formatTokens(tokensOf(totals))}</td>
      <td data-testid={`${testid}-cost`}>
        {formatCost(totals.costUsd)}
        {totals.unpricedCalls > 0 && <span class="muted"> (+{totals.unpricedCalls} unpriced)</span>}
      </td>
    </>
  );
}

/** Tokens and cost of this session: per participant, its own and with everything it delegated; and per session. */
export function Cost({
  usage,
  sessions,
  sessionId,
  participants = [],
}: {
  usage: UsageView | null;
  sessions: SessionSummary[];
  sessionId: string | null;
  /** For names; an id not among them shows as itself. */
  participants?: readonly Person[];
}) {
  return (
    <section class="panel" data-testid="view-cost">
      <h2>Cost</h2>
      {usage === null ? (
        <p class="muted">No session is open.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Participant</th>
              <th>Own tokens</th>
              <th>Own cost</th>
              <th>With delegates, tokens</th>
              <th>With delegates, cost</th>
              <th>Calls</th>
            </tr>
          </thead>
          <tbody>
            {usage.participants.map((participant) => (
              <tr key={participant.id} data-testid={`cost-${participant.id}`}>
                <th>
                  <Who id={participant.id} participants={participants} />
                </th>
                <TotalsCells totals={participant.own} testid={`cost-${participant.id}-own`} />
                <TotalsCells totals={participant.withDelegates} testid={`cost-${participant.id}-all`} />
                <td>{participant.own.calls}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr data-testid="cost-total">
              <th>Session</th>
              <td colSpan={2} />
              <TotalsCells totals={usage.total} testid="cost-total" />
              <td data-testid="cost-total-calls">{usage.total.calls}</td>
            </tr>
          </tfoot>
        </table>
      )}
      <h3>Per session</h3>
      <table>
        <tbody>
          {sessions.map((session) => (
            <tr key={session.id} class={session.id === sessionId ? 'current' : ''}>
              <th>{visibleText(session.title ?? session.id)}</th>
              <td>{formatTokens(session.tokens)} tokens</td>
              <td>{formatCost(session.costUsd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
