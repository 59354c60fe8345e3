import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HeaderEntry, LogEntry } from '../records/log-entry.js';
import type { Message } from '../../kernel/index.js';
import { FileConversationLog, type Placed } from './FileConversationLog.js';
import type { LogWarning } from '../fs/jsonl-log.js';
import type { WorkspacePaths } from '../fs/workspace-paths.js';
import { cursorPosition, makeCursor } from '../log-cursor.js';
import { assertConversationAddress, assertSessionName, isConversationName } from '../record-names.js';
import type {
  AcquireResult,
  AppendableEntry,
  ConversationAddress,
  ConversationContext,
  ConversationLogs,
  Lease,
  LogCursor,
} from '../session-backend.js';
import { FileLeases } from './file-leases.js';
import { OpenHandles } from '../fs/open-handles.js';

const CURSOR = 'file';
/**
 * Logs kept open (an append descriptor, a cached header) after use. Beyond this
 * many, the least recently used is closed and reopened when next used, so a
 * long-lived process keeps a bounded number of descriptors.
 */
const OPEN_LOGS = 32;

export interface FileConversationsOptions {
  fsync: 'message' | 'turn' | 'never';
  onWarning: (warning: LogWarning) => void;
  now: () => number;
  /** Told where each entry landed, when that is certain (a header's too): what the session index counts. */
  onAppended?: ((address: ConversationAddress, placed: Placed, message: Message | undefined) => void) | undefined;
}

/** `sessions/<id>/conversations/<conversation>.jsonl`, locked by `sessions/<id>/locks/<conversation>.lock`. */
export class FileConversations implements ConversationLogs {
  private readonly open = new OpenHandles<FileConversationLog>(OPEN_LOGS);
  private readonly leases: FileLeases;
  private readonly strays = new Set<string>();

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly options: FileConversationsOptions,
  ) {
    this.leases = new FileLeases(paths, options.now, (address) => this.log(address).repairTail());
  }

  async ensureHeader(address: ConversationAddress, header: HeaderEntry): Promise<HeaderEntry> {
    const log = this.log(address);
    const placed = log.ensureHeader(header);
    if (placed) this.options.onAppended?.(address, placed, undefined);
    // A first line that is no header (a hand edit) was warned about and is left alone.
    return log.header() ?? header;
  }

  async header(address: ConversationAddress): Promise<HeaderEntry | undefined> {
    return this.log(address).header();
  }

  async append(address: ConversationAddress, entry: AppendableEntry, lease: Lease): Promise<LogCursor> {
    const log = this.log(address);
    // Checked and written with no await between: nothing of this process runs in between.
    this.leases.assertHeld(address, lease);
    let placed: Placed | undefined;
    if (entry.kind === 'message') {
      // appendMessage puts `kind` first and spreads the rest; the entry's own `kind` lands on that same key.
      placed = log.appendMessage(entry);
    } else if (entry.kind === 'note') {
      // `kind` first: readers classify a line by its prefix.
      const { kind, ...note } = entry;
      placed = log.appendNote({ kind, ...note });
    } else {
      const { kind, ...compaction } = entry;
      placed = log.appendCompaction({ kind, ...compaction });
    }
    if (placed) this.options.onAppended?.(address, placed, entry.kind === 'message' ? entry : undefined);
    // Appends are made under the lease, so the end of the file is the end of this entry.
    return makeCursor(CURSOR, log.appendedEnd());
  }

  async recent(address: ConversationAddress, limit: number): Promise<Message[]> {
    return this.log(address).recent(limit);
  }

  async context(address: ConversationAddress): Promise<ConversationContext> {
    const { compaction, messages, end } = this.log(address).sinceCompaction();
    return { compaction, messages, cursor: makeCursor(CURSOR, end) };
  }

  async end(address: ConversationAddress): Promise<LogCursor> {
    return makeCursor(CURSOR, this.log(address).end());
  }

  async readSince(
    address: ConversationAddress,
    cursor: LogCursor | undefined,
  ): Promise<{ messages: Message[]; cursor: LogCursor; compacted: boolean }> {
    // A line another process is still writing is left for the next call, unwarned.
    const { messages, next, compacted } = this.log(address).readSince(cursor === undefined ? 0 : cursorPosition(CURSOR, cursor));
    return { messages, cursor: makeCursor(CURSOR, next), compacted };
  }

  async flush(address: ConversationAddress): Promise<void> {
    // `message`: every append was fsynced already; `never`: the workspace asked for no fsync at all.
    if (this.options.fsync === 'turn') await this.log(address).syncOffThread();
  }

  async entries(address: ConversationAddress): Promise<Exclude<LogEntry, HeaderEntry>[]> {
    return this.log(address).entries();
  }

  async list(sessionId: string): Promise<string[]> {
    assertSessionName(sessionId);
    const dir = this.paths.conversationsDir(sessionId);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((entry) => entry.endsWith('.jsonl'))
      .map((entry) => entry.slice(0, -'.jsonl'.length))
      .filter((id) => {
        if (isConversationName(id)) return true;
        this.strayOnce(join(dir, `${id}.jsonl`));
        return false;
      })
      .sort();
  }

  acquire(address: ConversationAddress, owner: string, options: { ttlMs: number }): Promise<AcquireResult> {
    assertConversationAddress(address);
    return this.leases.acquire(address, owner, options);
  }

  /** A `.jsonl` file that is no conversation (put there by hand or another program) is said once, and left alone. */
  private strayOnce(path: string): void {
    if (this.strays.has(path)) return;
    if (this.strays.size >= 1000) this.strays.clear();
    this.strays.add(path);
    this.options.onWarning({
      path,
      offset: 0,
      problem: 'not followed: its name is no conversation id (<initiator>__<responder>[__<name>]); Legion leaves the file alone',
    });
  }

  close(): void {
    this.leases.releaseAll();
    this.open.closeAll();
  }

  private log(address: ConversationAddress): FileConversationLog {
    return this.open.getOrOpen(`${address.sessionId}/${address.conversationId}`, () => {
      assertConversationAddress(address);
      return new FileConversationLog(
        this.paths.conversationFile(address.sessionId, address.conversationId),
        this.paths.conversationLock(address.sessionId, address.conversationId),
        { fsyncEachMessage: this.options.fsync === 'message', onWarning: this.options.onWarning },
      );
    });
  }
}
