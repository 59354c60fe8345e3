import { randomBytes } from 'node:crypto';
import type { SseEventName } from './wire/events.js';

/** One message of the event stream, kept for replay: its JSON already written once for every client. */
export interface JournalEntry {
  seq: number;
  event: Exclude<SseEventName, 'reset'>;
  /** The `data:` line: the payload with its `seq`. */
  data: string;
  /** The session it belongs to, for clients that follow one session. */
  sessionId: string | undefined;
  /** On a `text:delta`: its conversation, for clients that take the deltas of one conversation only. */
  deltaOf?: string | undefined;
}

export type ReplayFrom =
  /** `after`: the seq the client last saw, which the entries follow. */
  | { kind: 'replay'; after: number; entries: JournalEntry[] }
  | { kind: 'reset'; reason: 'other_epoch' | 'too_old' | 'malformed_id'; message: string };

export interface JournalLimits {
  /** Entries kept for replay (default 20,000). */
  maxEvents?: number | undefined;
  /** Bytes of `data` kept for replay (default 64 MB). */
  maxBytes?: number | undefined;
}

/**
 * The server's event stream: every message gets the next `seq` of this server process (whose
 * random `epoch` tells a client it talks to another process after a restart), and the newest are
 * kept in a ring so that a client that reconnects gets exactly what it missed.
 */
export class EventJournal {
  /** Hex: ids are `<epoch>-<seq>`, and hex has no `-`. */
  readonly epoch = randomBytes(6).toString('hex');
  private seq = 0;
  /** The ring: `entries[start…]` are live; the dead front is cut off in bulk. */
  private entries: JournalEntry[] = [];
  private start = 0;
  private bytes = 0;
  private readonly listeners = new Set<(entry: JournalEntry) => void>();
  private readonly maxEvents: number;
  private readonly maxBytes: number;

  constructor(limits: JournalLimits = {}) {
    this.maxEvents = limits.maxEvents ?? 20_000;
    this.maxBytes = limits.maxBytes ?? 64 * 1024 * 1024;
  }

  get lastSeq(): number {
    return this.seq;
  }

  idOf(seq: number): string {
    return `${this.epoch}-${seq}`;
  }

  append(event: JournalEntry['event'], payload: Record<string, unknown>, sessionId: string | undefined, deltaOf?: string): JournalEntry {
    const seq = ++this.seq;
    const entry: JournalEntry = {
      seq,
      event,
      data: JSON.stringify({ ...payload, seq }),
      sessionId,
      ...(deltaOf !== undefined ? { deltaOf } : {}),
    };
    this.entries.push(entry);
    this.bytes += entry.data.length;
    while (this.entries.length - this.start > this.maxEvents || (this.bytes > this.maxBytes && this.entries.length - this.start > 1)) {
      this.bytes -= this.entries[this.start]!.data.length;
      this.start++;
    }
    if (this.start > 1024 && this.start * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.start);
      this.start = 0;
    }
    for (const listener of this.listeners) listener(entry);
    return entry;
  }

  subscribe(listener: (entry: JournalEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What a client that last saw `lastEventId` missed, or why it must reload instead. */
  since(lastEventId: string): ReplayFrom {
    const dash = lastEventId.lastIndexOf('-');
    const epoch = lastEventId.slice(0, dash);
    const seq = Number(lastEventId.slice(dash + 1));
    if (dash <= 0 || !Number.isSafeInteger(seq) || seq < 0) {
      return {
        kind: 'reset',
        reason: 'malformed_id',
        message: `The event id "${lastEventId}" is not one this server sent (<epoch>-<seq>): reload the state through the REST API.`,
      };
    }
    if (epoch !== this.epoch || seq > this.seq) {
      return {
        kind: 'reset',
        reason: 'other_epoch',
        message: 'The server was restarted since that event: reload the state through the REST API.',
      };
    }
    const first = this.entries[this.start]?.seq ?? this.seq + 1;
    if (seq < first - 1) {
      return {
        kind: 'reset',
        reason: 'too_old',
        message: `Events after ${seq} are no longer kept (the oldest kept is ${first}): reload the state through the REST API.`,
      };
    }
    return { kind: 'replay', after: seq, entries: this.entries.slice(this.start + (seq - first + 1)) };
  }
}
