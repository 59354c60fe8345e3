import type { ConversationLog } from '../conversation/conversation-log.js';
import {
  CONVERSATION_FORMAT_VERSION,
  HeaderEntrySchema,
  MessageEntrySchema,
  migrateEntry,
  type HeaderEntry,
  type NoteEntry,
} from '../conversation/log-entry.js';
import type { Message } from '../conversation/message.js';
import { LegionError } from '../errors.js';
import { describeHolder, FileLock } from './file-lock.js';
import { JsonlLog, type LogLine, type LogWarning } from './jsonl-log.js';

const MESSAGE_PREFIX = '{"kind":"message"';
const COMPACTION_PREFIX = '{"kind":"compaction"';

/**
 * A conversation as `<session>/conversations/<id>.jsonl`: a header line, then
 * one line per entry. Reading the newest messages reads from the end; loading
 * the model's context stops at the last compaction point.
 */
export class FileConversationLog implements ConversationLog {
  private readonly log: JsonlLog;
  private readonly lock: FileLock;
  private cachedHeader: HeaderEntry | undefined;
  /** Offset up to which this process has seen the file. */
  private seenEnd = -1;

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

  ensureHeader(header: HeaderEntry): void {
    if (this.header()) return;
    this.advanceSeen(this.log.append(header));
    this.cachedHeader = header;
  }

  header(): HeaderEntry | undefined {
    if (this.cachedHeader) return this.cachedHeader;
    if (!this.log.exists()) return undefined;
    const first = this.log.readForwardFirst();
    if (!first) return undefined;
    const parsed = HeaderEntrySchema.safeParse(safeJson(first.text));
    if (!parsed.success) {
      this.warn(first.offset, 'the first line is not a conversation header; the file may have been edited by hand');
      return undefined;
    }
    if (parsed.data.version > CONVERSATION_FORMAT_VERSION) {
      throw new LegionError(
        'format_too_new',
        `${this.path} was written by a newer Legion (format ${parsed.data.version}, this one reads up to ${CONVERSATION_FORMAT_VERSION}). Upgrade Legion to open it.`,
        { path: this.path },
      );
    }
    this.cachedHeader = parsed.data;
    return parsed.data;
  }

  appendMessage(message: Message): void {
    // Spread order fixes `kind` first, so that readers can classify a line by its prefix.
    this.advanceSeen(this.log.append({ kind: 'message', ...message }));
  }

  appendNote(note: NoteEntry): void {
    this.advanceSeen(this.log.append(note));
  }

  recent(limit: number): Message[] {
    const version = this.header()?.version ?? CONVERSATION_FORMAT_VERSION;
    const messages: Message[] = [];
    this.log.readBackward({
      stop: (line) => {
        if (line.text.startsWith(MESSAGE_PREFIX)) {
          const message = this.parseMessage(line, version);
          if (message) messages.push(message);
        }
        return messages.length >= limit;
      },
    });
    return messages.reverse();
  }

  context(): Message[] {
    const version = this.header()?.version ?? CONVERSATION_FORMAT_VERSION;
    const end = this.log.diskSize();
    const messages: Message[] = [];
    this.log.readBackward({
      stop: (line) => {
        if (line.text.startsWith(COMPACTION_PREFIX)) return true;
        if (line.text.startsWith(MESSAGE_PREFIX)) {
          const message = this.parseMessage(line, version);
          if (message) messages.push(message);
        }
        return false;
      },
    });
    this.seenEnd = end;
    return messages.reverse();
  }

  readNew(): Message[] {
    const size = this.log.diskSize();
    if (this.seenEnd < 0 || size === this.seenEnd) {
      this.seenEnd = size;
      return [];
    }
    const version = this.header()?.version ?? CONVERSATION_FORMAT_VERSION;
    const { lines, end } = this.log.readForward(this.seenEnd);
    this.seenEnd = end;
    const messages: Message[] = [];
    for (const line of lines) {
      if (!line.text.startsWith(MESSAGE_PREFIX)) continue;
      const message = this.parseMessage(line, version);
      if (message) messages.push(message);
    }
    return messages;
  }

  sync(): void {
    this.log.sync();
  }

  tryLock(purpose: string): boolean {
    if (!this.lock.tryAcquire(purpose)) return false;
    // A holder that died mid-write may have left a torn line; cut it before anything reads or appends.
    if (this.log.exists()) this.log.repairTail();
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

  /** Appends happen under the conversation lock, after `readNew`, so the file grew by exactly these bytes. */
  private advanceSeen(bytes: number): void {
    if (this.seenEnd >= 0) this.seenEnd += bytes;
  }

  private parseMessage(line: LogLine, version: number): Message | undefined {
    const parsed = MessageEntrySchema.safeParse(migrateEntry(safeJson(line.text), version));
    if (!parsed.success) {
      this.warn(line.offset, `skipped an unreadable message line (${parsed.error.issues[0]?.message ?? 'invalid'})`);
      return undefined;
    }
    const { kind: _kind, ...message } = parsed.data;
    return message;
  }

  private warn(offset: number, problem: string): void {
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
