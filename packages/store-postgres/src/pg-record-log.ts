import { type StorageWarning } from '@legion-collective/core';
import { assertSessionName, type ClaimResult, type LogCursor, type RecordLog, type RecordLogFormat } from '@legion-collective/core/backend';
import type { Database } from './connection.js';
import { CHANGES_CHANNEL } from './presence.js';
import { appendEntry } from './log-append.js';
import { cursorSeq, makeCursor, readRecord, sourceOf } from './records.js';

/**
 * A session's record log (`approvals`, `questions`, `usage`, `conflicts`) as rows of `legion.entries` under the
 * log's name, each with its kind and, for a claim, the key it claims (a decision's request id, an
 * outcome's question id): the table every log has used since the first schema. Claims are made in a
 * transaction that holds the log's row, so they are checked and written as one step across every
 * process, and the unique index on `claim` is there behind it.
 */
export class PostgresRecordLog<Appended, Claim = never> implements RecordLog<Appended, Claim> {
  private readonly logId: string;

  constructor(
    private readonly db: Database,
    private readonly format: RecordLogFormat<Appended, Claim>,
    private readonly warn: (warning: StorageWarning) => void,
  ) {
    this.logId = format.name;
  }

  /** Per session, the last write this instance started: the next one waits for it. */
  private readonly tails = new Map<string, Promise<unknown>>();

  async append(sessionId: string, record: Appended): Promise<void> {
    assertSessionName(sessionId);
    await this.inOrder(sessionId, () =>
      appendEntry(this.db, {
        sessionId,
        logId: this.logId,
        kind: this.format.kindOf(record),
        body: record,
        notify: this.format.wakesFollowers,
      }),
    );
  }

  /**
   * One write at a time per session from this instance, in call order: the log then holds one
   * process's records in the order it made them, as a file appended synchronously does (two
   * parallel delegates' requests, say), instead of in the order their round trips happen to finish.
   */
  private inOrder<T>(sessionId: string, write: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(sessionId) ?? Promise.resolve();
    const next = previous.then(write, write);
    const tail = next.catch(() => undefined);
    this.tails.set(sessionId, tail);
    void tail.then(() => {
      if (this.tails.get(sessionId) === tail) this.tails.delete(sessionId);
    });
    return next;
  }

  /** Writes every record, each claiming its key, if no key is claimed yet; else nothing, and the records that hold them. */
  async claim(sessionId: string, records: readonly Claim[]): Promise<ClaimResult<Claim>> {
    assertSessionName(sessionId);
    if (records.length === 0) return { ok: true };
    return this.inOrder(sessionId, () => this.claimNow(sessionId, records));
  }

  private claimNow(sessionId: string, records: readonly Claim[]): Promise<ClaimResult<Claim>> {
    return this.db.transaction(async (client) => {
      // A decision is never lost once a process was told it won (whatever the appends' durability).
      await client.query('SET LOCAL synchronous_commit = on');
      // Creating or touching the log's row locks it until commit: claims on this log queue here.
      const locked = await client.query<{ last_seq: string }>(
        `INSERT INTO legion.logs AS log (session_id, log_id, last_seq) VALUES ($1, $2, 0)
         ON CONFLICT (session_id, log_id) DO UPDATE SET last_seq = log.last_seq RETURNING last_seq`,
        [sessionId, this.logId],
      );
      const taken = await client.query<{ body: unknown }>(
        'SELECT body FROM legion.entries WHERE session_id = $1 AND log_id = $2 AND claim = ANY($3::text[]) ORDER BY seq',
        [sessionId, this.logId, records.map((record) => this.format.claimKey(record))],
      );
      if (taken.rows.length > 0)
        return {
          ok: false,
          taken: taken.rows.map((row) => readRecord(row.body, this.format.claimSchema, sourceOf(sessionId, this.logId), this.format.what)),
        };
      let seq = Number(locked.rows[0]?.last_seq ?? 0);
      for (const record of records) {
        seq += 1;
        await client.query(
          'INSERT INTO legion.entries (session_id, log_id, seq, kind, claim, body) VALUES ($1, $2, $3, $4, $5, $6::jsonb)',
          [sessionId, this.logId, seq, this.format.kindOf(record), this.format.claimKey(record), JSON.stringify(record)],
        );
      }
      await client.query('UPDATE legion.logs SET last_seq = $3 WHERE session_id = $1 AND log_id = $2', [sessionId, this.logId, seq]);
      if (this.format.wakesFollowers) await client.query(`SELECT pg_notify('${CHANGES_CHANNEL}', $1)`, [sessionId]);
      return { ok: true };
    });
  }

  async read(sessionId: string): Promise<Array<Appended | Claim>> {
    return (await this.readSince(sessionId)).records;
  }

  async readSince(sessionId: string, cursor?: LogCursor): Promise<{ records: Array<Appended | Claim>; cursor: LogCursor }> {
    assertSessionName(sessionId);
    const from = cursor === undefined ? 0 : cursorSeq(cursor);
    // Entries commit in the order of their numbers (see appendEntry): nothing below the last one read appears later.
    const rows = await this.db.query<{ seq: string; body: unknown }>(
      'SELECT seq, body FROM legion.entries WHERE session_id = $1 AND log_id = $2 AND seq > $3 ORDER BY seq',
      [sessionId, this.logId, from],
    );
    const read = this.format.reader();
    const records: Array<Appended | Claim> = [];
    let last = from;
    for (const row of rows) {
      last = Number(row.seq);
      const reading = read(row.body);
      if (!reading.ok)
        this.warn({
          source: sourceOf(sessionId, this.logId),
          offset: last,
          problem: `skipped an unreadable ${this.format.what} (${reading.problem})`,
          sessionId,
        });
      else if (reading.record !== undefined) records.push(reading.record);
    }
    return { records, cursor: makeCursor(last) };
  }
}
