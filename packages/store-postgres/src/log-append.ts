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
  entry: { sessionId: string; logId: string; kind: string; body: unknown; claim?: string | undefined; notify: boolean },
): Promise<number> {
  const rows = await db.query<{ seq: string }>(
    `WITH next AS (
       INSERT INTO legion.logs AS log (session_id, log_id, last_seq) VALUES ($1, $2, 1)
       ON CONFLICT (session_id, log_id) DO UPDATE SET last_seq = log.last_seq + 1
       RETURNING last_seq)
     INSERT INTO legion.entries (session_id, log_id, seq, kind, claim, body)
     SELECT $1, $2, next.last_seq, $3, $4, $5::jsonb FROM next${entry.notify ? `, (SELECT pg_notify('${CHANGES_CHANNEL}', $1)) AS notified` : ''}
     RETURNING seq`,
    [entry.sessionId, entry.logId, entry.kind, entry.claim ?? null, JSON.stringify(entry.body)],
    entry.notify ? 'legion-append-notify' : 'legion-append',
  );
  return Number(rows[0]?.seq);
}
