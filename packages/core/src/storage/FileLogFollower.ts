import { existsSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Message } from '../conversation/message.js';
import { FileConversationLog } from './FileConversationLog.js';
import type { LogWarning } from './jsonl-log.js';

/** Where a follower is in each conversation log, by conversation id: give it back to follow on without a gap. */
export type FollowCursor = Readonly<Record<string, number>>;

export interface FileLogFollowerOptions {
  /** A session's `conversations/` directory (it may not exist yet). */
  directory: string;
  /**
   * `end` (default): what the logs hold now is history, only later appends
   * are reported. A cursor: everything after it; a conversation the cursor
   * does not name (it began later) is read from its start.
   */
  from?: 'end' | FollowCursor | undefined;
  /** Fallback for file systems whose change notifications do not arrive (network mounts); default 500 ms. */
  pollMs?: number | undefined;
  /** Which logs to read (default: all); one left out is never opened. */
  include?: ((conversationId: string) => boolean) | undefined;
  onMessages: (conversationId: string, messages: Message[]) => void;
  onWarning: (warning: LogWarning) => void;
}

const SUFFIX = '.jsonl';

/**
 * Reads what other processes append to a session's conversation logs, as it
 * is appended: change notifications on the directory (fs.watch), with a poll
 * as a fallback. A log that appears later is read from its start; an entry
 * still being written waits for its newline. Never writes, never locks.
 */
export class FileLogFollower {
  private readonly logs = new Map<string, { log: FileConversationLog; position: number }>();
  private watcher: FSWatcher | undefined;
  /** Watching the parent until the directory exists. */
  private watchingParent = false;
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
    return cursor;
  }

  /** Reads every log for appends now (the watcher and the poll call this too). */
  check(only?: string): void {
    if (this.closed) return;
    const ids = only !== undefined ? [only] : this.conversationIds();
    // Notifications stopped (or the directory has appeared since): watch again.
    if (!this.watcher || (this.watchingParent && existsSync(this.options.directory))) this.watch();
    for (const id of ids) this.read(id);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
  }

  private read(id: string): void {
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
      // A log this Legion cannot read (written by a newer one, unreadable): said once, never thrown into a watcher.
      const problem = `not followed: ${error instanceof Error ? error.message : String(error)}`;
      if (!this.failed.has(`${id}\u0000${problem}`)) {
        this.failed.add(`${id}\u0000${problem}`);
        this.options.onWarning({ path: entry.log.path, offset: entry.position, problem });
      }
      return;
    }
    entry.position = read.next;
    if (read.messages.length > 0) this.options.onMessages(id, read.messages);
  }

  private open(id: string): FileConversationLog {
    const path = `${this.options.directory}/${id}${SUFFIX}`;
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
   * Watches the directory, or — before the session's first conversation has
   * created it — its parent, until it appears.
   */
  private watch(): void {
    const { directory } = this.options;
    this.watcher?.close();
    this.watcher = undefined;
    this.watchingParent = false;
    try {
      this.watcher = watch(directory, { persistent: false }, (_event, file) => {
        const name = file?.toString();
        if (name?.endsWith(SUFFIX)) this.check(name.slice(0, -SUFFIX.length));
        else this.check();
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return;
      try {
        this.watcher = watch(dirname(directory), { persistent: false }, (_event, file) => {
          if (file?.toString() === basename(directory)) this.check();
        });
        this.watchingParent = true;
      } catch {
        // No notifications here: the poll still reads.
        return;
      }
    }
    // Notification watchers can fail later (the directory was removed): fall back to the poll, which re-watches.
    this.watcher?.on('error', () => {
      this.watcher?.close();
      this.watcher = undefined;
    });
  }
}
