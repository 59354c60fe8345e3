import type { QueryResultRow } from 'pg';
import { LegionError } from '@legion-collective/core';
import { LeaseLostError } from '@legion-collective/core/backend';
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
    /**
     * The lease of conversation `logId` the append is made under (a fencing token). Checked in the
     * same statement as the write, with the lease row locked (`FOR SHARE`) until it commits: a
     * takeover that committed first leaves nothing to write, and one that comes later waits for
     * this append. So a holder paused past its expiry cannot append beside its successor.
     */
    lease?: { token: string; owner: string } | undefined;
    /**
     * A conversation's message: its time and words (`searchWords`, joined by spaces). The log's
     * message count and newest time move on in the same statement, and the words are indexed.
     */
    message?: { at: string; words: string } | undefined;
  },
): Promise<number> {
  const parameters: unknown[] = [
    entry.sessionId,
    entry.logId,
    entry.kind,
    entry.claim ?? null,
    JSON.stringify(entry.body),
    entry.message?.at ?? null,
    entry.message?.words ?? null,
  ];
  const parameter = (value: unknown): string => `$${parameters.push(value)}`;
  const after = entry.after === undefined ? undefined : parameter(entry.after);
  const token = entry.lease === undefined ? undefined : parameter(entry.lease.token);
  const fence =
    token === undefined
      ? ''
      : `fence AS (SELECT 1 AS held FROM legion.leases WHERE session_id = $1 AND conversation_id = $2 AND token = ${token} FOR SHARE),\n`;
  const next =
    after === undefined
      ? `INSERT INTO legion.logs AS log (session_id, log_id, last_seq, messages, last_message_at)
         SELECT $1, $2, 1, ($6::text IS NOT NULL)::int, $6::text${token === undefined ? '' : ' FROM fence'}
         ON CONFLICT (session_id, log_id) DO UPDATE SET last_seq = log.last_seq + 1, messages = log.messages + EXCLUDED.messages,
           last_message_at = coalesce(EXCLUDED.last_message_at, log.last_message_at)
         RETURNING last_seq`
      : `UPDATE legion.logs SET last_seq = last_seq + 1, messages = messages + ($6::text IS NOT NULL)::int,
           last_message_at = coalesce($6::text, last_message_at)${token === undefined ? '' : ' FROM fence'}
         WHERE session_id = $1 AND log_id = $2 AND last_seq >= ${after}
         RETURNING last_seq`;
  const notify = entry.notify ? `, (SELECT pg_notify('${CHANGES_CHANNEL}', $1)) AS notified` : '';
  const text = `WITH ${fence}next AS (${next})
     INSERT INTO legion.entries (session_id, log_id, seq, kind, claim, body, words)
     SELECT $1, $2, next.last_seq, $3, $4, $5::jsonb, CASE WHEN $7::text IS NULL THEN NULL ELSE to_tsvector('simple', $7::text) END FROM next${notify}
     RETURNING seq`;
  // One prepared statement per shape of the query.
  const name = `legion-append${after === undefined ? '' : '-after'}${token === undefined ? '' : '-fenced'}${entry.notify ? '-notify' : ''}`;
  const run = <Row extends QueryResultRow>(): Promise<Row[]> =>
    entry.notify ? db.queryNotifying<Row>(text, parameters, name) : db.query<Row>(text, parameters, name);
  const rows = await run<{ seq: string }>();
  const seq = rows[0]?.seq;
  if (seq !== undefined) return Number(seq);
  if (entry.lease !== undefined) {
    // Nothing was written; which of the two conditions refused it is read only now, on this rare path.
    const held = await db.query('SELECT 1 FROM legion.leases WHERE session_id = $1 AND conversation_id = $2 AND token = $3', [
      entry.sessionId,
      entry.logId,
      entry.lease.token,
    ]);
    if (held.length === 0) throw new LeaseLostError(`conversation ${entry.logId} of session ${entry.sessionId}`, entry.lease.owner);
  }
  throw new LegionError(
    'log_lost_entries',
    `The log ${entry.logId} of session ${entry.sessionId} no longer holds entry ${entry.after ?? 0} that this process appended: the database lost its last entries (it restarted before flushing them) or the session was removed. Nothing more is appended to it by this turn; send the message again to continue from what the log holds.`,
    { sessionId: entry.sessionId, logId: entry.logId, after: entry.after },
  );
}
