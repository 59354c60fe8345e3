import { randomBytes } from 'node:crypto';
import {
  CompactionEntrySchema,
  HeaderEntrySchema,
  LogEntrySchema,
  MessageEntrySchema,
  type CompactionEntry,
  type HeaderEntry,
  type LogEntry,
} from '../records/log-entry.js';
import type { Message } from '../../kernel/index.js';
import { LeaseLostError } from '../lease-lost-error.js';
import { cursorPosition, makeCursor } from '../log-cursor.js';
import { assertConversationAddress, assertSessionName } from '../record-names.js';
import type {
  AcquireResult,
  AppendableEntry,
  ConversationAddress,
  ConversationContext,
  ConversationLogs,
  Lease,
  LogCursor,
  StorageWarning,
} from '../session-backend.js';
import type { MemoryLogRecord, MemorySessionStore } from './MemorySessionStore.js';
import { parseRecord } from './memory-records.js';

const CURSOR = 'memory';

/** Conversation logs as arrays of entries in the shared store; a cursor is an entry count. */
export class MemoryConversations implements ConversationLogs {
  /** Leases this instance holds, by token, so that `close` gives them back. */
  private readonly held = new Map<string, string>();

  constructor(
    private readonly store: MemorySessionStore,
    private readonly processId: string,
    private readonly now: () => number,
    private readonly warn: (warning: StorageWarning) => void,
  ) {}

  async ensureHeader(address: ConversationAddress, header: HeaderEntry): Promise<HeaderEntry> {
    const log = this.log(address, true);
    log.header ??= JSON.stringify(header);
    return (await this.header(address)) ?? header;
  }

  async header(address: ConversationAddress): Promise<HeaderEntry | undefined> {
    const text = this.log(address, false)?.header;
    if (text === undefined) return undefined;
    const parsed = parseRecord(text, HeaderEntrySchema);
    if (parsed.ok) return parsed.value;
    this.warn({ source: source(address), offset: 0, problem: `the header is unreadable (${parsed.problem})` });
    return undefined;
  }

  async append(address: ConversationAddress, entry: AppendableEntry, lease: Lease): Promise<LogCursor> {
    const log = this.log(address, true);
    // The fencing token: the store's lease for this conversation must still be the one the caller holds.
    if (this.store.leases.get(keyOf(address))?.token !== lease.token) {
      this.held.delete(lease.token);
      throw new LeaseLostError(`conversation ${address.conversationId} of session ${address.sessionId}`, lease.owner);
    }
    // `kind` first, as the file backend writes it: entries are classified by their start.
    const { kind, ...fields } = entry;
    log.entries.push(JSON.stringify({ kind, ...fields }));
    this.store.changed(address.sessionId);
    return makeCursor(CURSOR, log.entries.length);
  }

  async recent(address: ConversationAddress, limit: number): Promise<Message[]> {
    const entries = this.log(address, false)?.entries ?? [];
    const messages: Message[] = [];
    for (let index = entries.length - 1; index >= 0 && messages.length < limit; index--) {
      const message = this.message(address, entries, index);
      if (message) messages.push(message);
    }
    return messages.reverse();
  }

  async context(address: ConversationAddress): Promise<ConversationContext> {
    const entries = this.log(address, false)?.entries ?? [];
    const messages: Message[] = [];
    let compaction: CompactionEntry | undefined;
    /** Once the compaction entry is found: how many messages before it still belong to the context. */
    let kept = 0;
    for (let index = entries.length - 1; index >= 0; index--) {
      const kind = kindOf(entries[index] ?? '');
      if (kind === 'compaction') {
        // An earlier compaction point among the kept messages is passed over: the newest one rules.
        if (compaction) continue;
        const parsed = parseRecord(entries[index] ?? '', CompactionEntrySchema);
        if (parsed.ok) {
          compaction = parsed.value;
          kept = parsed.value.keptMessages;
          if (kept === 0) break;
          continue;
        }
        this.warn({ source: source(address), offset: index, problem: `skipped an unreadable compaction entry (${parsed.problem})` });
        continue;
      }
      const message = this.message(address, entries, index);
      if (message) messages.push(message);
      if (compaction && message && --kept <= 0) break;
    }
    return { compaction, messages: messages.reverse(), cursor: makeCursor(CURSOR, entries.length) };
  }

  async end(address: ConversationAddress): Promise<LogCursor> {
    return makeCursor(CURSOR, this.log(address, false)?.entries.length ?? 0);
  }

  async readSince(
    address: ConversationAddress,
    cursor: LogCursor | undefined,
  ): Promise<{ messages: Message[]; cursor: LogCursor; compacted: boolean }> {
    const entries = this.log(address, false)?.entries ?? [];
    const from = cursor === undefined ? 0 : Math.min(cursorPosition(CURSOR, cursor), entries.length);
    const messages: Message[] = [];
    let compacted = false;
    for (let index = from; index < entries.length; index++) {
      if (kindOf(entries[index] ?? '') === 'compaction') compacted = true;
      const message = this.message(address, entries, index);
      if (message) messages.push(message);
    }
    return { messages, cursor: makeCursor(CURSOR, entries.length), compacted };
  }

  async flush(address: ConversationAddress): Promise<void> {
    assertConversationAddress(address);
  }

  async entries(address: ConversationAddress): Promise<Exclude<LogEntry, HeaderEntry>[]> {
    const entries: Exclude<LogEntry, HeaderEntry>[] = [];
    for (const [index, text] of (this.log(address, false)?.entries ?? []).entries()) {
      const parsed = parseRecord(text, LogEntrySchema);
      if (!parsed.ok) this.warn({ source: source(address), offset: index, problem: `skipped an unreadable entry (${parsed.problem})` });
      else if (parsed.value.kind !== 'header') entries.push(parsed.value);
    }
    return entries;
  }

  async list(sessionId: string): Promise<string[]> {
    assertSessionName(sessionId);
    const prefix = `${sessionId}/`;
    return [...this.store.logs.keys()]
      .filter((key) => key.startsWith(prefix))
      .map((key) => key.slice(prefix.length))
      .sort();
  }

  async acquire(address: ConversationAddress, owner: string, options: { ttlMs: number }): Promise<AcquireResult> {
    assertConversationAddress(address);
    const key = keyOf(address);
    const current = this.store.leases.get(key);
    if (current && current.expiresAtMs > this.now() && !this.store.isEnded(current.processId)) {
      return { acquired: false, holder: { owner: current.owner, expiresAt: new Date(current.expiresAtMs).toISOString() } };
    }
    const token = randomBytes(8).toString('hex');
    let expiresAtMs = this.now() + options.ttlMs;
    this.store.leases.set(key, { owner, expiresAtMs, token, processId: this.processId });
    this.held.set(token, key);
    const lease: Lease = {
      owner,
      token,
      get expiresAt() {
        return new Date(expiresAtMs).toISOString();
      },
      renew: async () => {
        const record = this.store.leases.get(key);
        if (record?.token !== token) {
          this.held.delete(token);
          throw new LeaseLostError(`conversation ${address.conversationId} of session ${address.sessionId}`, owner);
        }
        expiresAtMs = this.now() + options.ttlMs;
        record.expiresAtMs = expiresAtMs;
      },
      release: async () => this.release(token),
    };
    return { acquired: true, lease };
  }

  releaseAll(): void {
    for (const token of [...this.held.keys()]) this.release(token);
  }

  private release(token: string): void {
    const key = this.held.get(token);
    this.held.delete(token);
    if (key !== undefined && this.store.leases.get(key)?.token === token) this.store.leases.delete(key);
  }

  private log(address: ConversationAddress, create: true): MemoryLogRecord;
  private log(address: ConversationAddress, create: false): MemoryLogRecord | undefined;
  private log(address: ConversationAddress, create: boolean): MemoryLogRecord | undefined {
    assertConversationAddress(address);
    const key = keyOf(address);
    let log = this.store.logs.get(key);
    if (!log && create) {
      log = { header: undefined, entries: [] };
      this.store.logs.set(key, log);
    }
    return log;
  }

  /** The message at `index`, or undefined for another kind of entry or (with a warning) a broken one. */
  private message(address: ConversationAddress, entries: readonly string[], index: number): Message | undefined {
    const text = entries[index] ?? '';
    const kind = kindOf(text);
    if (kind === 'note' || kind === 'compaction') return undefined;
    const parsed = parseRecord(text, MessageEntrySchema);
    if (!parsed.ok) {
      this.warn({ source: source(address), offset: index, problem: `skipped an unreadable entry (${parsed.problem})` });
      return undefined;
    }
    const { kind: _kind, ...message } = parsed.value;
    return message;
  }
}

function keyOf(address: ConversationAddress): string {
  return `${address.sessionId}/${address.conversationId}`;
}

function source(address: ConversationAddress): string {
  return `memory:sessions/${keyOf(address)}`;
}

function kindOf(text: string): string | undefined {
  const match = /^\{"kind":"([a-z]+)"/.exec(text);
  return match?.[1];
}
