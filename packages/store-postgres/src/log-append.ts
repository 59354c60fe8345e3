import type { QueryResultRow } from 'pg';
import { LegionError } from '@legion-collective/core';
import { CHANGES_CHANNEL } from './presence.js';
import type { Database } from './connection.js';

/**
 * Appends one entry to a log in one statement: the log's row is created or its `last_seq` moved
 * on (which locks the row until the statement commits, so appends to one log are serialized and
 * commit in the order of their numbers: a reader never sees entry n+1 without entry n), the entry
 * is inserted, and, with `notify`, every listener is told the session changed, on commit.
 */
export async function appendEntry(
  db: Database,
  entry: {
    sessionId: string;
    logId: string;
    kind: string;
    body: unknown;
    claim?: string | undefined;
    notify: boolean;
    /**
     * The number of the last entry this instance appended to the log, if it did: the log must
     * still reach it. A database that restarted before it flushed that entry has lost it (see
     * `durability`), and appending after the gap would leave, say, a tool result whose call is gone.
     */
    after?: number | undefined;
  },
): Promise<number> {
  const notify = entry.notify ? `, (SELECT pg_notify('${CHANGES_CHANNEL}', $1)) AS notified` : '';
  const values = [entry.sessionId, entry.logId, entry.kind, entry.claim ?? null, JSON.stringify(entry.body)];
  const run = <Row extends QueryResultRow>(text: string, parameters: readonly unknown[], name: string): Promise<Row[]> =>
    entry.notify ? db.queryNotifying<Row>(text, parameters, name) : db.query<Row>(text, parameters, name);
  const rows =
    entry.after === undefined
      ? await run<{ seq: string }>(
          `WITH next AS (
             INSERT INTO legion.logs AS log (session_id, log_id, last_seq) VALUES ($1, $2, 1)
             ON CONFLICT (session_id, log_id) DO UPDATE SET last_seq = log.last_seq + 1
             RETURNING last_seq)
           INSERT INTO legion.entries (session_id, log_id, seq, kind, claim, body)
           SELECT $1, $2, next.last_seq, $3, $4, $5::jsonb FROM next${notify}
           RETURNING seq`,
          values,
          entry.notify ? 'legion-append-notify' : 'legion-append',
        )
      : await run<{ seq: string }>(
          `WITH next AS (
             UPDATE legion.logs SET last_seq = last_seq + 1 WHERE session_id = $1 AND log_id = $2 AND last_seq >= $6
             RETURNING last_seq)
           INSERT INTO legion.entries (session_id, log_id, seq, kind, claim, body)
           SELECT $1, $2, next.last_seq, $3, $4, $5::jsonb FROM next${notify}
           RETURNING seq`,
          [...values, entry.after],
          entry.notify ? 'legion-append-after-notify' : 'legion-append-after',
        );
  const seq = rows[0]?.seq;
  if (seq === undefined) {
    throw new LegionError(
      'log_lost_entries',
      `The log ${entry.logId} of session ${entry.sessionId} no longer holds entry ${entry.after ?? 0} that this process appended: the database lost its last entries (it restarted before flushing them) or the session was removed. Nothing more is appended to it by this turn; send the message again to continue from what the log holds.`,
      { sessionId: entry.sessionId, logId: entry.logId, after: entry.after },
    );
  }
  return Number(seq);
}
