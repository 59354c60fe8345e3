import { existsSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Message } from '../message.js';
import { FileConversationLog } from './FileConversationLog.js';
import { JsonlLog, type LogWarning } from './jsonl-log.js';

/**
 * Where a follower is in each log, by conversation id (and `approvals` for
 * the approvals log, a key no conversation id can be): give it back to follow
 * on without a gap.
 */
export type FollowCursor = Readonly<Record<string, number>>;

export interface FileLogFollowerOptions {
  /** A session's `conversations/` directory (it may not exist yet). */
  directory: string;
  /** The session's approvals log, followed too when given (it sits beside `directory`). */
  approvalsFile?: string | undefined;
  /**
   * `end` (default): what the logs hold now is history, only later appends
   * are reported. A cursor: everything after it; a log the cursor does not
   * name (it began later) is read from its start.
   */
  from?: 'end' | FollowCursor | undefined;
  /** Fallback for file systems whose change notifications do not arrive (network mounts); default 500 ms. */
  pollMs?: number | undefined;
  /** Which conversation logs to read (default: all); one left out is never opened. */
  include?: ((conversationId: string) => boolean) | undefined;
  onMessages: (conversationId: string, messages: Message[]) => void;
  /** The approvals log's new lines, parsed as JSON (not yet checked against a schema). */
  onApprovalRecords?: ((records: unknown[]) => void) | undefined;
  onWarning: (warning: LogWarning) => void;
}

const SUFFIX = '.jsonl';
const APPROVALS = 'approvals';

/**
 * Reads what other processes append to a session's logs, as it is appended:
 * change notifications (fs.watch) on the conversations directory and the
 * session directory, with a poll as a fallback. A log that appears later is
 * read from its start; a line still being written waits for its newline.
 * Never writes, never locks.
 */
export class FileLogFollower {
  private readonly logs = new Map<string, { log: FileConversationLog; position: number }>();
  private readonly approvals: { log: JsonlLog; position: number } | undefined;
  private conversationsWatcher: FSWatcher | undefined;
  private sessionWatcher: FSWatcher | undefined;
  private readonly failed = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: FileLogFollowerOptions) {
    const from = options.from ?? 'end';
    for (const id of this.conversationIds()) {
      if (options.include && !options.include(id)) continue;
      const log = this.open(id);
      this.logs.set(id, { log, position: from === 'end' ? log.end() : (from[id] ?? 0) });
    }
    if (options.approvalsFile) {
      const log = new JsonlLog(options.approvalsFile);
      this.approvals = { log, position: from === 'end' ? log.endOfLastLine() : (from[APPROVALS] ?? 0) };
    }
    this.watch();
    this.timer = setInterval(() => this.check(), options.pollMs ?? 500);
    // A follower alone never keeps a process alive.
    this.timer.unref();
    if (from !== 'end') this.check();
  }

  /** Where the follower is now: a later `from` continues exactly here. */
  cursor(): FollowCursor {
    const cursor: Record<string, number> = {};
    for (const [id, { position }] of this.logs) cursor[id] = position;
    if (this.approvals) cursor[APPROVALS] = this.approvals.position;
    return cursor;
  }

  /** Reads every log for appends now (the watchers and the poll call this too). */
  check(): void {
    if (this.closed) return;
    this.watch();
    this.readApprovals();
    for (const id of this.conversationIds()) this.read(id);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.conversationsWatcher?.close();
    this.sessionWatcher?.close();
    this.conversationsWatcher = undefined;
    this.sessionWatcher = undefined;
  }

  private read(id: string): void {
    if (this.closed) return;
    let entry = this.logs.get(id);
    if (!entry) {
      if (this.options.include && !this.options.include(id)) return;
      entry = { log: this.open(id), position: 0 };
      this.logs.set(id, entry);
    }
    let read: { messages: Message[]; next: number };
    try {
      read = entry.log.readSince(entry.position);
    } catch (error) {
      this.failedOnce(entry.log.path, entry.position, error);
      return;
    }
    entry.position = read.next;
    if (read.messages.length > 0) this.options.onMessages(id, read.messages);
  }

  private readApprovals(): void {
    const approvals = this.approvals;
    if (!approvals || this.closed) return;
    try {
      const size = approvals.log.diskSize();
      if (size === approvals.position) return;
      if (size < approvals.position) {
        // Records are only ever appended: something else cut or replaced the file.
        this.options.onWarning({ path: approvals.log.path, offset: size, problem: `the log is shorter (${size} bytes) than where it was followed from (${approvals.position}): it was cut or replaced; following on from its end` });
        approvals.position = approvals.log.endOfLastLine();
        return;
      }
      const { lines, end } = approvals.log.readForward(approvals.position, { waitForPartial: true });
      approvals.position = end;
      const records: unknown[] = [];
      for (const line of lines) {
        try {
          records.push(JSON.parse(line.text));
        } catch {
          this.options.onWarning({ path: approvals.log.path, offset: line.offset, problem: 'skipped a line that is not JSON' });
        }
      }
      if (records.length > 0) this.options.onApprovalRecords?.(records);
    } catch (error) {
      this.failedOnce(approvals.log.path, approvals.position, error);
    }
  }

  /** A log this Legion cannot read (written by a newer one, unreadable): said once, never thrown into a watcher. */
  private failedOnce(path: string, offset: number, error: unknown): void {
    const problem = `not followed: ${error instanceof Error ? error.message : String(error)}`;
    const key = `${path}\u0000${problem}`;
    if (this.failed.has(key)) return;
    this.failed.add(key);
    this.options.onWarning({ path, offset, problem });
  }

  private open(id: string): FileConversationLog {
    const path = join(this.options.directory, `${id}${SUFFIX}`);
    // The lock path is never used: a follower reads without locking.
    return new FileConversationLog(path, `${path}.follower-never-locks`, { onWarning: this.options.onWarning });
  }

  private conversationIds(): string[] {
    try {
      return readdirSync(this.options.directory)
        .filter((entry) => entry.endsWith(SUFFIX))
        .map((entry) => entry.slice(0, -SUFFIX.length));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /**
   * Watches what is not watched yet: the session directory (the approvals
   * log, and the conversations directory appearing) and the conversations
   * directory once it exists. A watcher that fails is dropped; the poll
   * watches again.
   */
  private watch(): void {
    const { directory } = this.options;
    this.sessionWatcher ??= this.tryWatch(dirname(directory), (file) => {
      if (file === basename(directory)) this.check();
      else if (this.options.approvalsFile && file === basename(this.options.approvalsFile)) this.readApprovals();
    }, () => (this.sessionWatcher = undefined));
    if (!this.conversationsWatcher && existsSync(directory)) {
      this.conversationsWatcher = this.tryWatch(directory, (file) => {
        if (file?.endsWith(SUFFIX)) this.read(file.slice(0, -SUFFIX.length));
        else this.check();
      }, () => (this.conversationsWatcher = undefined));
    }
  }

  private tryWatch(path: string, onChange: (file: string | undefined) => void, onFail: () => void): FSWatcher | undefined {
    let watcher: FSWatcher;
    try {
      watcher = watch(path, { persistent: false }, (_event, file) => onChange(file?.toString()));
    } catch {
      // No notifications here (yet): the poll still reads.
      return undefined;
    }
    watcher.on('error', () => {
      watcher.close();
      onFail();
    });
    return watcher;
  }
}
