import type { z } from 'zod';
import { type StorageWarning } from '@legion-collective/core';
import { assertSessionName } from '@legion-collective/core/backend';
import type { Database } from './connection.js';
import { CHANGES_CHANNEL } from './presence.js';
import { appendEntry } from './log-append.js';
import { parseRecord, readRecord, sourceOf } from './records.js';

/**
 * A session log of records some of which claim a key once (the approvals log: one decision per
 * request; the questions log: one outcome per question). Claims are made in a transaction that
 * holds the log's row, so they are checked and written as one step across every process, and the
 * unique index on `claim` is there behind it.
 */
export class ClaimedLog<Record extends { kind: string }> {
  constructor(
    private readonly db: Database,
    private readonly logId: string,
    private readonly schema: z.ZodType<Record>,
    private readonly what: string,
    private readonly warn: (warning: StorageWarning) => void,
  ) {}

  /** Per session, the last write this instance started: the next one waits for it. */
  private readonly tails = new Map<string, Promise<unknown>>();

  async append(sessionId: string, record: Record): Promise<void> {
    assertSessionName(sessionId);
    await this.inOrder(sessionId, () =>
      appendEntry(this.db, { sessionId, logId: this.logId, kind: record.kind, body: record, notify: true }),
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
  async claim(
    sessionId: string,
    records: ReadonlyArray<{ key: string; record: Record }>,
  ): Promise<{ ok: true } | { ok: false; taken: Record[] }> {
    assertSessionName(sessionId);
    return this.inOrder(sessionId, () => this.claimNow(sessionId, records));
  }

  private claimNow(
    sessionId: string,
    records: ReadonlyArray<{ key: string; record: Record }>,
  ): Promise<{ ok: true } | { ok: false; taken: Record[] }> {
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
        [sessionId, this.logId, records.map((item) => item.key)],
      );
      if (taken.rows.length > 0)
        return { ok: false, taken: taken.rows.map((row) => readRecord(row.body, this.schema, sourceOf(sessionId, this.logId), this.what)) };
      let seq = Number(locked.rows[0]?.last_seq ?? 0);
      for (const { key, record } of records) {
        seq += 1;
        await client.query(
          'INSERT INTO legion.entries (session_id, log_id, seq, kind, claim, body) VALUES ($1, $2, $3, $4, $5, $6::jsonb)',
          [sessionId, this.logId, seq, record.kind, key, JSON.stringify(record)],
        );
      }
      await client.query('UPDATE legion.logs SET last_seq = $3 WHERE session_id = $1 AND log_id = $2', [sessionId, this.logId, seq]);
      await client.query(`SELECT pg_notify('${CHANGES_CHANNEL}', $1)`, [sessionId]);
      return { ok: true };
    });
  }

  async read(sessionId: string): Promise<Record[]> {
    assertSessionName(sessionId);
    const rows = await this.db.query<{ seq: string; body: unknown }>(
      'SELECT seq, body FROM legion.entries WHERE session_id = $1 AND log_id = $2 ORDER BY seq',
      [sessionId, this.logId],
    );
    const records: Record[] = [];
    for (const row of rows) {
      const parsed = parseRecord(row.body, this.schema);
      if (parsed.ok) records.push(parsed.value);
      else
        this.warn({
          source: sourceOf(sessionId, this.logId),
          offset: Number(row.seq),
          problem: `skipped an unreadable ${this.what} (${parsed.problem})`,
          sessionId,
        });
    }
    return records;
  }
}
