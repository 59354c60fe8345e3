import {
  CompactionEntrySchema,
  CONVERSATION_FORMAT_VERSION,
  HeaderEntrySchema,
  LogEntrySchema,
  MessageEntrySchema,
  type CompactionEntry,
  type CompactionEntryInput,
  type HeaderEntry,
  type LogEntry,
  type NoteEntry,
} from '../records/log-entry.js';
import type { Message } from '../../kernel/index.js';
import { LegionError } from '../../kernel/index.js';
import { describeHolder, FileLock } from '../fs/file-lock.js';
import { JsonlLog, type LogLine, type LogWarning } from '../fs/jsonl-log.js';

/** Where an appended line landed: its first byte and just past its newline. */
export interface Placed {
  start: number;
  end: number;
}

export const MESSAGE_PREFIX = '{"kind":"message"';
const COMPACTION_PREFIX = '{"kind":"compaction"';
/** Lines Legion writes: anything else in a conversation log is garbage (a hand edit, another program). */
const KNOWN_PREFIXES = [MESSAGE_PREFIX, COMPACTION_PREFIX, '{"kind":"header"', '{"kind":"note"'];

/**
 * A conversation as `<session>/conversations/<id>.jsonl`: a header line, then
 * one line per entry. Reading the newest messages reads from the end; loading
 * the model's context stops at the last compaction point.
 */
export class FileConversationLog {
  private readonly log: JsonlLog;
  private readonly lock: FileLock;
  private cachedHeader: HeaderEntry | undefined;
  /** Offset up to which this process has seen the file. */
  private seenEnd = -1;

  /** Warnings already given, by offset and problem: a bad line is reported once, not at every read. */
  private readonly warned = new Set<string>();

  constructor(
    path: string,
    lockPath: string,
    private readonly options: { fsyncEachMessage?: boolean; onWarning?: (warning: LogWarning) => void } = {},
  ) {
    this.log = new JsonlLog(path, { fsync: options.fsyncEachMessage, onWarning: options.onWarning });
    this.lock = new FileLock(lockPath);
  }

  get path(): string {
    return this.log.path;
  }

  /** Where the header landed when this call wrote it (see `JsonlLog.appendPlaced`). */
  ensureHeader(header: HeaderEntry): Placed | undefined {
    if (this.header()) return undefined;
    // A first line that is not a header (hand-edited file) was warned about; a header
    // appended after it would only add a second, misplaced one on every turn.
    if (this.log.readForwardFirst()) return undefined;
    const placed = this.place(header);
    this.cachedHeader = header;
    return placed;
  }

  header(): HeaderEntry | undefined {
    if (this.cachedHeader) return this.cachedHeader;
    if (!this.log.exists()) return undefined;
    const first = this.log.readForwardFirst();
    if (!first) return undefined;
    const raw = safeJson(first.text);
    // Checked before the schema: a newer format may also have changed the header's shape.
    const version = (raw as { kind?: unknown; version?: unknown } | undefined)?.version;
    if (
      (raw as { kind?: unknown } | undefined)?.kind === 'header' &&
      typeof version === 'number' &&
      version > CONVERSATION_FORMAT_VERSION
    ) {
      throw new LegionError(
        'format_too_new',
        `${this.path} was written by a newer Legion (format ${version}, this one reads up to ${CONVERSATION_FORMAT_VERSION}). Upgrade Legion to open it.`,
        { path: this.path, version },
      );
    }
    const parsed = HeaderEntrySchema.safeParse(raw);
    if (!parsed.success) {
      this.warn(first.offset, 'the first line is not a conversation header; the file may have been edited by hand');
      return undefined;
    }
    this.cachedHeader = parsed.data;
    return parsed.data;
  }

  /** Each append says where the entry landed, when that is certain (see `JsonlLog.appendPlaced`): what the session index counts. */
  appendMessage(message: Message): Placed | undefined {
    // Spread order fixes `kind` first, so that readers can classify a line by its prefix.
    return this.place({ kind: 'message', ...message });
  }

  appendNote(note: NoteEntry): Placed | undefined {
    return this.place(note);
  }

  appendCompaction(entry: CompactionEntryInput): Placed | undefined {
    return this.place(entry);
  }

  private place(entry: unknown): Placed | undefined {
    const { bytes, placed } = this.log.appendPlaced(entry);
    this.advanceSeen(bytes);
    return placed;
  }

  recent(limit: number): Message[] {
    if (limit <= 0) return [];
    this.header(); // refuses a file written by a newer Legion
    const messages: Message[] = [];
    this.log.readBackward({
      stop: (line) => {
        if (line.text.startsWith(MESSAGE_PREFIX)) {
          const message = this.parseMessage(line);
          if (message) messages.push(message);
        } else this.checkOther(line);
        return messages.length >= limit;
      },
    });
    return messages.reverse();
  }

  context(): Message[] {
    return this.sinceCompaction().messages;
  }

  /**
   * The last compaction point, the messages it kept and those after it, oldest first,
   * and the offset just past the newest complete line (what this log has now seen).
   */
  sinceCompaction(): { compaction: CompactionEntry | undefined; messages: Message[]; end: number } {
    this.header(); // refuses a file written by a newer Legion
    const messages: Message[] = [];
    let compaction: CompactionEntry | undefined;
    /** Once the compaction line is found: how many messages before it still belong to the context. */
    let kept = 0;
    // Seen up to the end of the newest complete line: a torn tail is not seen, so that
    // once it is cut and replaced, `readNew` starts where the replacement starts.
    let end: number | undefined;
    this.log.readBackward({
      stop: (line) => {
        end ??= line.end;
        if (line.text.startsWith(COMPACTION_PREFIX)) {
          // An earlier compaction point among the kept messages is passed over: the newest one rules.
          if (compaction) return false;
          const parsed = CompactionEntrySchema.safeParse(safeJson(line.text));
          // An unreadable compaction line is no point to stop at: reading goes on past it.
          if (parsed.success) {
            compaction = parsed.data;
            kept = parsed.data.keptMessages;
            return kept === 0;
          }
          this.warn(line.offset, `skipped an unreadable compaction line (${parsed.error.issues[0]?.message ?? 'invalid'})`);
          return false;
        }
        if (line.text.startsWith(MESSAGE_PREFIX)) {
          const message = this.parseMessage(line);
          if (message) messages.push(message);
          if (compaction && message) return --kept <= 0;
        } else this.checkOther(line);
        return false;
      },
    });
    this.seenEnd = end ?? 0;
    return { compaction, messages: messages.reverse(), end: this.seenEnd };
  }

  readNew(): Message[] {
    const size = this.log.diskSize();
    if (this.seenEnd < 0) {
      // Nothing read yet: what is on disk now is the baseline (a torn tail excluded, as in `context`).
      this.seenEnd = this.log.readBackward({ limit: 1 })[0]?.end ?? 0;
      return [];
    }
    if (size === this.seenEnd) return [];
    // The file shrank: a torn tail was cut (by this process or another); what is left was seen.
    if (size < this.seenEnd) this.seenEnd = size;
    this.header(); // refuses a file written by a newer Legion
    const { lines, end } = this.log.readForward(this.seenEnd);
    this.seenEnd = end;
    return this.messagesOf(lines);
  }

  /**
   * Where the entry just appended ends: appends happen under the conversation lock, the descriptor's
   * size was read when it opened and grows by what this process wrote (as `advanceSeen` relies on),
   * so no `fstat` per append.
   */
  appendedEnd(): number {
    return this.log.knownSize;
  }

  /** Bytes on disk now, complete or not (another process may have appended). */
  diskSize(): number {
    return this.log.diskSize();
  }

  /** Cuts a torn last line a dead writer left (its bytes are kept aside); done by whoever takes the lock. */
  repairTail(): void {
    if (this.log.exists()) this.log.repairTail();
  }

  sync(): void {
    this.log.sync();
  }

  syncOffThread(): Promise<void> {
    return this.log.syncOffThread();
  }

  tryLock(purpose: string): boolean {
    if (!this.lock.tryAcquire(purpose)) return false;
    // A holder that died mid-write may have left a torn line; cut it before anything reads or appends.
    this.repairTail();
    return true;
  }

  lockHolder(): string {
    return describeHolder(this.lock.holder());
  }

  unlock(): void {
    this.lock.release();
  }

  close(): void {
    this.lock.release();
    this.log.close();
  }

  /** Every entry after the header, oldest first, of every kind (for a copy); a broken line is skipped and said once. */
  entries(): Exclude<LogEntry, HeaderEntry>[] {
    if (!this.log.exists()) return [];
    this.header(); // refuses a file written by a newer Legion
    const entries: Exclude<LogEntry, HeaderEntry>[] = [];
    for (const line of this.log.readForward(0).lines) {
      if (line.text.trim() === '') continue;
      const parsed = LogEntrySchema.safeParse(safeJson(line.text));
      if (!parsed.success) {
        this.warn(line.offset, `skipped an unreadable line (${parsed.error.issues[0]?.message ?? 'invalid'})`);
        continue;
      }
      if (parsed.data.kind !== 'header') entries.push(parsed.data);
    }
    return entries;
  }

  /** Where the log ends now, for a follower that starts here: just past its last complete line. */
  end(): number {
    return this.log.endOfLastLine();
  }

  /**
   * For followers: the messages appended after `position` (from `end()` or an
   * earlier `next`), oldest first, and the position after them. A line still
   * being written is left for the next call. Independent of `readNew`.
   */
  readSince(position: number): { messages: Message[]; next: number; compacted: boolean } {
    const size = this.log.diskSize();
    if (size === position) return { messages: [], next: position, compacted: false };
    if (size < position) {
      // Legion only ever cuts a torn line, which a follower never read past: something else cut or replaced the file.
      this.warn(
        size,
        `the log is shorter (${size} bytes) than where it was followed from (${position}): it was cut or replaced; following on from its end`,
      );
      return { messages: [], next: this.log.endOfLastLine(), compacted: false };
    }
    this.header(); // refuses a file written by a newer Legion
    const { lines, end } = this.log.readForward(position, { waitForPartial: true });
    return { messages: this.messagesOf(lines), next: end, compacted: lines.some((line) => line.text.startsWith(COMPACTION_PREFIX)) };
  }

  /** Appends happen under the conversation lock, after `readNew`, so the file grew by exactly these bytes. */
  private advanceSeen(bytes: number): void {
    if (this.seenEnd >= 0) this.seenEnd += bytes;
  }

  /** The messages among lines read forward; other lines Legion does not write are said once. */
  private messagesOf(lines: LogLine[]): Message[] {
    const messages: Message[] = [];
    for (const line of lines) {
      if (!line.text.startsWith(MESSAGE_PREFIX)) {
        this.checkOther(line);
        continue;
      }
      const message = this.parseMessage(line);
      if (message) messages.push(message);
    }
    return messages;
  }

  private parseMessage(line: LogLine): Message | undefined {
    const parsed = MessageEntrySchema.safeParse(safeJson(line.text));
    if (!parsed.success) {
      this.warn(line.offset, `skipped an unreadable message line (${parsed.error.issues[0]?.message ?? 'invalid'})`);
      return undefined;
    }
    const { kind: _kind, ...message } = parsed.data;
    return message;
  }

  /** A line that is no entry Legion writes is skipped, and said once (not at every read). */
  private checkOther(line: LogLine): void {
    if (KNOWN_PREFIXES.some((prefix) => line.text.startsWith(prefix)) || line.text.trim() === '') return;
    this.warn(
      line.offset,
      `skipped a line that is not a conversation entry: ${JSON.stringify(line.text.length > 80 ? `${line.text.slice(0, 80)}…` : line.text)}`,
    );
  }

  private warn(offset: number, problem: string): void {
    const key = `${offset}:${problem}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.options.onWarning?.({ path: this.path, offset, problem });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
