import { LegionError, type Message, type StorageWarning } from '@legion-collective/core';
import {
  assertConversationAddress,
  assertSessionName,
  CompactionEntrySchema,
  HeaderEntrySchema,
  LogEntrySchema,
  MessageEntrySchema,
  searchableText,
  searchWords,
  type AcquireResult,
  type AppendableEntry,
  type CompactionEntry,
  type ConversationAddress,
  type ConversationContext,
  type ConversationLogs,
  type HeaderEntry,
  type Lease,
  type LogCursor,
  type LogEntry,
} from '@legion-collective/core/backend';
import type { Database } from './connection.js';
import { appendEntry } from './log-append.js';
import type { AgentStateCache } from './agent-state-cache.js';
import type { PostgresLeases } from './pg-leases.js';
import { cursorSeq, makeCursor, parseRecord, sourceOf } from './records.js';

interface EntryRow {
  seq: string;
  kind: string;
  body: unknown;
}

/** Rows read at a time when reading back from the end. */
const BATCH = 64;

/**
 * Conversation logs as rows of `legion.entries` (one per entry, numbered by `seq` from 1), with the
 * header and the last number in `legion.logs`. A cursor is the number of the last entry read, so
 * every read is an index range scan: its cost does not grow with the history.
 */
export class PostgresConversations implements ConversationLogs {
  constructor(
    private readonly db: Database,
    private readonly leases: PostgresLeases,
    private readonly warn: (warning: StorageWarning) => void,
    private readonly durability: 'message' | 'turn' | 'never' = 'turn',
    private readonly agentState?: AgentStateCache,
  ) {}

  async ensureHeader(address: ConversationAddress, header: HeaderEntry): Promise<HeaderEntry> {
    assertConversationAddress(address);
    const rows = await this.db.query<{ header: unknown }>(
      `INSERT INTO legion.logs AS log (session_id, log_id, header) VALUES ($1, $2, $3::jsonb)
       ON CONFLICT (session_id, log_id) DO UPDATE SET header = coalesce(log.header, EXCLUDED.header)
       RETURNING header`,
      [address.sessionId, address.conversationId, JSON.stringify(header)],
    );
    return this.readHeader(address, rows[0]?.header) ?? header;
  }

  async header(address: ConversationAddress): Promise<HeaderEntry | undefined> {
    assertConversationAddress(address);
    const rows = await this.db.query<{ header: unknown }>('SELECT header FROM legion.logs WHERE session_id = $1 AND log_id = $2', [
      address.sessionId,
      address.conversationId,
    ]);
    return this.readHeader(address, rows[0]?.header);
  }

  /** By `<session>/<conversation>`: the number of the last entry this instance appended there. */
  private readonly appended = new Map<string, number>();

  async append(address: ConversationAddress, entry: AppendableEntry, lease: Lease): Promise<LogCursor> {
    assertConversationAddress(address);
    const key = `${address.sessionId}/${address.conversationId}`;
    let seq: number;
    try {
      seq = await appendEntry(this.db, {
        sessionId: address.sessionId,
        logId: address.conversationId,
        kind: entry.kind,
        body: entry,
        notify: true,
        after: this.appended.get(key),
        lease: { token: lease.token, owner: lease.owner },
        ...(entry.kind === 'message' ? { message: { at: entry.at, words: searchWords(searchableText(entry)).join(' ') } } : {}),
      });
    } catch (error) {
      // Refused once: the next turn starts from what the log holds.
      if (error instanceof LegionError && (error.code === 'log_lost_entries' || error.code === 'lease_lost')) this.appended.delete(key);
      throw error;
    }
    this.appended.set(key, seq);
    return makeCursor(seq);
  }

  async recent(address: ConversationAddress, limit: number): Promise<Message[]> {
    assertConversationAddress(address);
    const messages: Message[] = [];
    let before = Number.MAX_SAFE_INTEGER;
    while (messages.length < limit) {
      // Newest first, skipping notes and compaction points in the query; a broken message is passed over.
      const rows = await this.db.query<EntryRow>(
        `SELECT seq, kind, body FROM legion.entries WHERE session_id = $1 AND log_id = $2 AND seq < $3 AND kind NOT IN ('note', 'compaction')
         ORDER BY seq DESC LIMIT $4`,
        [address.sessionId, address.conversationId, before, Math.min(limit - messages.length, 10_000)],
      );
      for (const row of rows) {
        const message = this.message(address, row);
        if (message) messages.push(message);
        before = Number(row.seq);
      }
      if (rows.length === 0) break;
    }
    return messages.reverse();
  }

  async context(address: ConversationAddress): Promise<ConversationContext> {
    assertConversationAddress(address);
    // One round trip (a turn starts with it): the log's end, its newest compaction point and every
    // message after that point, in one snapshot.
    const rows = await this.db.query<{ end_seq: string; point_seq: string | null; seq: string | null; kind: string | null; body: unknown }>(
      `WITH log AS (SELECT last_seq FROM legion.logs WHERE session_id = $1 AND log_id = $2),
       point AS (
         SELECT max(entry.seq) AS seq FROM legion.entries AS entry, log
         WHERE entry.session_id = $1 AND entry.log_id = $2 AND entry.kind = 'compaction' AND entry.seq <= log.last_seq)
       SELECT log.last_seq AS end_seq, point.seq AS point_seq, entry.seq, entry.kind, entry.body
       FROM log CROSS JOIN point
       LEFT JOIN LATERAL (
         SELECT seq, kind, body FROM legion.entries
         WHERE session_id = $1 AND log_id = $2 AND seq >= coalesce(point.seq, 0) AND seq <= log.last_seq
           AND (kind NOT IN ('note', 'compaction') OR seq = point.seq)
         ORDER BY seq) AS entry ON true
       ORDER BY entry.seq`,
      [address.sessionId, address.conversationId],
      'legion-context',
    );
    const first = rows[0];
    if (!first) return { compaction: undefined, messages: [], cursor: makeCursor(0) };
    const end = Number(first.end_seq);
    const pointSeq = first.point_seq === null ? undefined : Number(first.point_seq);
    let compaction: { entry: CompactionEntry; seq: number } | undefined;
    if (pointSeq !== undefined) {
      const parsed = first.seq === null ? undefined : parseRecord(first.body, CompactionEntrySchema);
      // An unreadable newest point (rare): the older ones are looked for, one query at a time.
      if (!parsed?.ok) return this.contextPastBrokenPoints(address, end);
      compaction = { entry: parsed.value, seq: pointSeq };
    }
    const messages: Message[] = [];
    for (const row of rows) {
      if (row.seq === null || Number(row.seq) === pointSeq) continue;
      const message = this.message(address, { seq: row.seq, kind: row.kind ?? '', body: row.body });
      if (message) messages.push(message);
    }
    return {
      compaction: compaction?.entry,
      messages: [...(await this.keptBefore(address, compaction)), ...messages],
      cursor: makeCursor(end),
    };
  }

  /** `context` when the newest compaction point cannot be read: the newest readable one counts. */
  private async contextPastBrokenPoints(address: ConversationAddress, end: number): Promise<ConversationContext> {
    let compaction: { entry: CompactionEntry; seq: number } | undefined;
    const points = await this.db.query<EntryRow>(
      "SELECT seq, kind, body FROM legion.entries WHERE session_id = $1 AND log_id = $2 AND kind = 'compaction' AND seq <= $3 ORDER BY seq DESC",
      [address.sessionId, address.conversationId, end],
    );
    for (const row of points) {
      const parsed = parseRecord(row.body, CompactionEntrySchema);
      if (parsed.ok) {
        compaction = { entry: parsed.value, seq: Number(row.seq) };
        break;
      }
      this.warn({
        source: sourceOf(address.sessionId, address.conversationId),
        offset: Number(row.seq),
        problem: `skipped an unreadable compaction entry (${parsed.problem})`,
      });
    }
    const after = await this.db.query<EntryRow>(
      "SELECT seq, kind, body FROM legion.entries WHERE session_id = $1 AND log_id = $2 AND seq > $3 AND seq <= $4 AND kind NOT IN ('note', 'compaction') ORDER BY seq",
      [address.sessionId, address.conversationId, compaction?.seq ?? 0, end],
    );
    const messages = after.flatMap((row) => this.message(address, row) ?? []);
    return {
      compaction: compaction?.entry,
      messages: [...(await this.keptBefore(address, compaction)), ...messages],
      cursor: makeCursor(end),
    };
  }

  /** The messages a compaction kept from before it, passing over older compaction points among them. */
  private async keptBefore(
    address: ConversationAddress,
    compaction: { entry: CompactionEntry; seq: number } | undefined,
  ): Promise<Message[]> {
    let kept = compaction?.entry.keptMessages ?? 0;
    const earlier: Message[] = [];
    let before = compaction?.seq ?? 0;
    while (kept > 0 && before > 1) {
      const rows = await this.db.query<EntryRow>(
        "SELECT seq, kind, body FROM legion.entries WHERE session_id = $1 AND log_id = $2 AND seq < $3 AND kind NOT IN ('note', 'compaction') ORDER BY seq DESC LIMIT $4",
        [address.sessionId, address.conversationId, before, Math.min(kept, BATCH)],
      );
      if (rows.length === 0) break;
      for (const row of rows) {
        before = Number(row.seq);
        const message = this.message(address, row);
        if (message && kept > 0) {
          earlier.push(message);
          kept--;
        }
      }
    }
    return earlier.reverse();
  }

  async end(address: ConversationAddress): Promise<LogCursor> {
    assertConversationAddress(address);
    return makeCursor(await this.lastSeq(address));
  }

  async readSince(
    address: ConversationAddress,
    cursor: LogCursor | undefined,
  ): Promise<{ messages: Message[]; cursor: LogCursor; compacted: boolean }> {
    assertConversationAddress(address);
    const from = cursor === undefined ? 0 : cursorSeq(cursor);
    const rows = await this.db.query<EntryRow>(
      'SELECT seq, kind, body FROM legion.entries WHERE session_id = $1 AND log_id = $2 AND seq > $3 ORDER BY seq',
      [address.sessionId, address.conversationId, from],
    );
    const messages: Message[] = [];
    let compacted = false;
    let last = from;
    for (const row of rows) {
      last = Number(row.seq);
      if (row.kind === 'compaction') compacted = true;
      if (row.kind === 'note' || row.kind === 'compaction') continue;
      const message = this.message(address, row);
      if (message) messages.push(message);
    }
    return { messages, cursor: makeCursor(last), compacted };
  }

  async flush(address: ConversationAddress): Promise<void> {
    assertConversationAddress(address);
    if (this.durability !== 'turn') return;
    // A synchronous commit flushes the WAL up to itself, and with it every earlier append of any connection.
    // One statement, one round trip: the setting is local to its own transaction, whose commit it governs.
    await this.db.query(
      `WITH durable AS (SELECT set_config('synchronous_commit', 'on', true) AS setting)
       UPDATE legion.logs SET last_seq = last_seq FROM durable WHERE session_id = $1 AND log_id = $2`,
      [address.sessionId, address.conversationId],
      'legion-flush',
    );
  }

  async entries(address: ConversationAddress): Promise<Exclude<LogEntry, HeaderEntry>[]> {
    assertConversationAddress(address);
    const rows = await this.db.query<EntryRow>(
      'SELECT seq, kind, body FROM legion.entries WHERE session_id = $1 AND log_id = $2 ORDER BY seq',
      [address.sessionId, address.conversationId],
    );
    const entries: Exclude<LogEntry, HeaderEntry>[] = [];
    for (const row of rows) {
      const parsed = parseRecord(row.body, LogEntrySchema);
      if (!parsed.ok)
        this.warn({
          source: sourceOf(address.sessionId, address.conversationId),
          offset: Number(row.seq),
          problem: `skipped an unreadable entry (${parsed.problem})`,
        });
      else if (parsed.value.kind !== 'header') entries.push(parsed.value);
    }
    return entries;
  }

  async list(sessionId: string): Promise<string[]> {
    assertSessionName(sessionId);
    const rows = await this.db.query<{ log_id: string }>(
      "SELECT log_id FROM legion.logs WHERE session_id = $1 AND strpos(log_id, '__') > 0 ORDER BY log_id",
      [sessionId],
    );
    return rows.map((row) => row.log_id);
  }

  async acquire(address: ConversationAddress, owner: string, options: { ttlMs: number }): Promise<AcquireResult> {
    assertConversationAddress(address);
    // A new holder goes on from what the log holds, whatever this instance appended before.
    this.appended.delete(`${address.sessionId}/${address.conversationId}`);
    const result = await this.leases.acquire(address, owner, options);
    // A turn starts on agent state read now, not on what a notification still on its way would have dropped.
    if (result.acquired) this.agentState?.dropSession(address.sessionId);
    return result;
  }

  private async lastSeq(address: ConversationAddress): Promise<number> {
    const rows = await this.db.query<{ last_seq: string }>('SELECT last_seq FROM legion.logs WHERE session_id = $1 AND log_id = $2', [
      address.sessionId,
      address.conversationId,
    ]);
    return Number(rows[0]?.last_seq ?? 0);
  }

  private readHeader(address: ConversationAddress, stored: unknown): HeaderEntry | undefined {
    if (stored === null || stored === undefined) return undefined;
    const parsed = parseRecord(stored, HeaderEntrySchema);
    if (parsed.ok) return parsed.value;
    this.warn({
      source: sourceOf(address.sessionId, address.conversationId),
      offset: 0,
      problem: `the header is unreadable (${parsed.problem})`,
    });
    return undefined;
  }

  /** The message of a row, or undefined (with a warning) for a broken one. */
  private message(address: ConversationAddress, row: EntryRow): Message | undefined {
    const parsed = parseRecord(row.body, MessageEntrySchema);
    if (!parsed.ok) {
      this.warn({
        source: sourceOf(address.sessionId, address.conversationId),
        offset: Number(row.seq),
        problem: `skipped an unreadable entry (${parsed.problem})`,
      });
      return undefined;
    }
    const { kind: _kind, ...message } = parsed.value;
    return message;
  }
}
