import { existsSync, readdirSync, statSync } from 'node:fs';
import { z } from 'zod';
import { SessionNotFoundError, type Message } from '../../kernel/index.js';
import { assertSessionName, isConversationName } from '../record-names.js';
import { writeJsonAtomic } from '../fs/atomic-json.js';
import { JsonlLog } from '../fs/jsonl-log.js';
import { readRegularFileSync } from '../fs/regular-file.js';
import type { WorkspacePaths } from '../fs/workspace-paths.js';
import { hasEveryWord, searchableText, searchWords } from '../message-words.js';
import { MessageEntrySchema } from '../records/log-entry.js';
import { addUsage, emptyTotals, UsageRecordSchema, type UsageRecord } from '../records/usage-summary.js';
import { UsageTotalsSchema } from '../records/usage-totals.js';
import type { ConversationAddress, MessageHit, MessageSearch, SessionIndex, SessionTally } from '../session-backend.js';
import { WordFilter } from '../word-filter.js';
import { MESSAGE_PREFIX, type Placed } from './FileConversationLog.js';

/** Parsed index files kept in memory: some hundreds of bytes each, for every session of a large workspace. */
const REMEMBERED = 50_000;

/** How long an append's change to the index waits to be written with those that follow it. */
const SAVE_DELAY_MS = 100;

/** Rebuilds with a filter twice as big, at most this many times in one read (each reads the session's logs). */
const REBUILDS = 4;

const CountSchema = z.object({
  /** The log's bytes counted: up to the end of its last complete line when counted. */
  bytes: z.number().int().nonnegative(),
  messages: z.number().int().nonnegative(),
  lastMessageAt: z.string().optional(),
});
type Count = z.infer<typeof CountSchema>;

const IndexFileSchema = z.object({
  version: z.literal(1),
  conversations: z.record(z.string(), CountSchema),
  usage: z.object({ bytes: z.number().int().nonnegative(), totals: UsageTotalsSchema }).optional(),
  /** The words of every message counted above. */
  words: z.object({ bits: z.string(), words: z.number().int().nonnegative() }),
});

interface IndexState {
  conversations: Record<string, Count>;
  usage: { bytes: number; totals: z.infer<typeof UsageTotalsSchema> } | undefined;
  filter: WordFilter;
}

/** What the index needs of the conversation logs. */
export interface IndexedConversations {
  list(sessionId: string): Promise<string[]>;
  recent(address: ConversationAddress, limit: number): Promise<Message[]>;
}

function emptyState(words = 0): IndexState {
  return { conversations: {}, usage: undefined, filter: WordFilter.forWords(words) };
}

/** 0 for no file (no exception: a session with no usage yet has none, and a throw costs more than the stat). */
function sizeOf(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}

/**
 * Which version of a file this is: it is replaced whole (a rename), so a new inode, size or mtime
 * says another process (or this one) wrote it since.
 */
function stampOf(path: string): string | undefined {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stats ? `${stats.ino}:${stats.size}:${stats.mtimeNs}` : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * `sessions/<id>/index.json`: each conversation's message count and newest message time, the
 * session's usage totals, and a word filter of its messages, each count with the log bytes it
 * covers. Updated at every append (when where the entry landed is certain; written a moment later), and never trusted
 * beyond what the logs say: a read compares each log's size with the bytes counted and reads only
 * the lines past them. So a crash between an append and the index's update (kill -9), a process
 * that appended without updating it (an older Legion), or two processes overwriting each other's
 * update all cost a read of the lines not yet counted, never a wrong count. The logs stay the
 * truth; this file may be deleted at any time.
 *
 * Why a filter per session and not a workspace-wide inverted index: it lives and dies with its
 * session (removal, copy, another process's appends need no coordination), it is repaired by the
 * same tail read as the counts, and it stays small (about ten bits a word). A search for a word
 * found nowhere then reads one small file per session and no log.
 */
export class FileSessionIndex implements SessionIndex {
  /** Index files parsed, by session, with the stamp (`stampOf`) of the version read. */
  private readonly parsed = new Map<string, { stamp: string; state: IndexState }>();
  /** Indexes changed by appends and not written yet (`saveSoon`). */
  private readonly unsaved = new Map<string, IndexState>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly conversations: IndexedConversations,
  ) {}

  async tally(sessionId: string): Promise<SessionTally> {
    assertSessionName(sessionId);
    if (!existsSync(this.paths.sessionFile(sessionId))) throw new SessionNotFoundError(sessionId);
    const state = this.refresh(sessionId, await this.conversations.list(sessionId));
    return {
      conversations: Object.entries(state.conversations)
        .map(([conversationId, count]) => ({ conversationId, messages: count.messages, lastMessageAt: count.lastMessageAt }))
        .sort((a, b) => (a.conversationId < b.conversationId ? -1 : a.conversationId > b.conversationId ? 1 : 0)),
      usage: { ...(state.usage?.totals ?? emptyTotals()) },
    };
  }

  async search(search: MessageSearch): Promise<MessageHit[]> {
    const hits: MessageHit[] = [];
    if (search.words.length === 0 || search.limit <= 0) return hits;
    for (const session of search.sessions) {
      // Sessions come most recently active first: one last active before the oldest hit kept has none newer.
      const oldest = hits[search.limit - 1];
      if (oldest && session.lastActiveAt < oldest.message.at) break;
      // The conversations the index knows: listing the folder of every session costs more than all
      // the rest. One whose first line was written by a process that died before the index heard of
      // it is known from the next page (`tally` lists the folder) or append in its session.
      const state = this.refresh(session.id, undefined, { usage: false });
      if (!search.words.every((word) => state.filter.mayHave(word))) continue;
      for (const conversationId of await this.conversations.list(session.id)) {
        for (const message of await this.conversations.recent({ sessionId: session.id, conversationId }, Number.MAX_SAFE_INTEGER)) {
          if (hasEveryWord(message, search.words)) hits.push({ sessionId: session.id, conversationId, message });
        }
      }
      hits.sort((a, b) => (a.message.at < b.message.at ? 1 : a.message.at > b.message.at ? -1 : 0));
      hits.splice(search.limit);
    }
    return hits;
  }

  /** An entry was appended to a conversation at `placed` (a header at 0 starts its count). */
  conversationAppended(address: ConversationAddress, placed: Placed, message: Message | undefined): void {
    const state = this.load(address.sessionId) ?? (placed.start === 0 ? emptyState() : undefined);
    const known = state?.conversations[address.conversationId];
    if (!state || (known ? known.bytes !== placed.start : placed.start !== 0)) return;
    const count: Count = known ?? { bytes: 0, messages: 0 };
    count.bytes = placed.end;
    if (message) {
      count.messages++;
      count.lastMessageAt = message.at;
      for (const word of searchWords(searchableText(message))) state.filter.add(word);
      // Left for the next read, which rebuilds it bigger.
      if (state.filter.full) return this.forget(address.sessionId);
    }
    state.conversations[address.conversationId] = count;
    this.saveSoon(address.sessionId, state);
  }

  /** A usage record was appended at `placed`. */
  usageAppended(sessionId: string, placed: Placed, record: UsageRecord): void {
    const state = this.load(sessionId) ?? (placed.start === 0 ? emptyState() : undefined);
    if (!state) return;
    const usage = state.usage ?? (placed.start === 0 ? { bytes: 0, totals: emptyTotals() } : undefined);
    if (usage?.bytes !== placed.start) return;
    addUsage(usage.totals, record.usage, record.costUsd);
    usage.bytes = placed.end;
    state.usage = usage;
    this.saveSoon(sessionId, state);
  }

  /** The index brought up to what the logs hold now, reading only what it has not counted; saved when it changed. */
  private refresh(sessionId: string, listed: readonly string[] | undefined, options: { usage: boolean } = { usage: true }): IndexState {
    const loaded = this.load(sessionId);
    const conversationIds = listed ?? (loaded ? Object.keys(loaded.conversations) : this.listedNow(sessionId));
    let state = loaded ?? emptyState();
    let changed = loaded === undefined;
    for (let rebuild = 0; ; rebuild++) {
      const conversations: Record<string, Count> = {};
      for (const conversationId of conversationIds) {
        const path = this.paths.conversationFile(sessionId, conversationId);
        let count = state.conversations[conversationId];
        const size = sizeOf(path);
        // Shorter than counted: replaced by something other than Legion (which only appends); counted again.
        if (!count || size < count.bytes) count = { bytes: 0, messages: 0 };
        if (size > count.bytes) {
          this.countTail(path, count, state.filter);
          changed = true;
        }
        conversations[conversationId] = count;
      }
      if (Object.keys(state.conversations).some((id) => !(id in conversations))) changed = true;
      state.conversations = conversations;
      // A search needs no totals: its stat is spared.
      if (options.usage) changed = this.refreshUsage(sessionId, state) || changed;
      if (!state.filter.full || rebuild === REBUILDS) break;
      // The filter outgrew its size: everything is read again into one twice as big.
      state = emptyState(state.filter.words * 2);
      changed = true;
    }
    if (changed) this.save(sessionId, state);
    return state;
  }

  /** Brings the usage totals up to the ledger; true when they changed. */
  private refreshUsage(sessionId: string, state: IndexState): boolean {
    const path = this.paths.usageFile(sessionId);
    const size = sizeOf(path);
    let usage = state.usage;
    if (!usage || size < usage.bytes) usage = { bytes: 0, totals: emptyTotals() };
    const changed = usage !== state.usage && state.usage !== undefined;
    state.usage = usage;
    // No ledger yet (a session no model call was made in) is nothing to count, nor to save.
    if (size <= usage.bytes) return changed;
    this.sumTail(path, usage);
    return true;
  }

  private listedNow(sessionId: string): string[] {
    const dir = this.paths.conversationsDir(sessionId);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((entry) => entry.endsWith('.jsonl'))
      .map((entry) => entry.slice(0, -'.jsonl'.length))
      .filter((id) => isConversationName(id));
  }

  /** Counts the complete lines past `count.bytes` (a line still being written is left for later). */
  private countTail(path: string, count: Count, filter: WordFilter): void {
    const { lines, end } = new JsonlLog(path).readForward(count.bytes, { waitForPartial: true });
    for (const line of lines) {
      if (!line.text.startsWith(MESSAGE_PREFIX)) continue;
      // As `recent` does: an unreadable message line is no message (the log's reader warns of it).
      const parsed = MessageEntrySchema.safeParse(safeJson(line.text));
      if (!parsed.success) continue;
      count.messages++;
      count.lastMessageAt = parsed.data.at;
      for (const word of searchWords(searchableText(parsed.data))) filter.add(word);
    }
    count.bytes = end;
  }

  private sumTail(path: string, usage: NonNullable<IndexState['usage']>): void {
    const { lines, end } = new JsonlLog(path).readForward(usage.bytes, { waitForPartial: true });
    for (const line of lines) {
      const parsed = UsageRecordSchema.safeParse(safeJson(line.text));
      if (parsed.success) addUsage(usage.totals, parsed.data.usage, parsed.data.costUsd);
    }
    usage.bytes = end;
  }

  /** The index file as stored, parsed once per version of it (a search over every session reads only those that changed). */
  private load(sessionId: string): IndexState | undefined {
    const unsaved = this.unsaved.get(sessionId);
    if (unsaved) return unsaved;
    const path = this.paths.sessionIndexFile(sessionId);
    const stamp = stampOf(path);
    if (stamp === undefined) return undefined;
    const remembered = this.parsed.get(sessionId);
    if (remembered?.stamp === stamp) return remembered.state;
    try {
      const parsed = IndexFileSchema.safeParse(JSON.parse(readRegularFileSync(path).toString('utf8')));
      if (!parsed.success) return undefined;
      const filter = WordFilter.parse(parsed.data.words);
      if (!filter) return undefined;
      const state = { conversations: parsed.data.conversations, usage: parsed.data.usage, filter };
      this.remember(sessionId, stamp, state);
      return state;
    } catch {
      // None yet, or unreadable: built again from the logs.
      return undefined;
    }
  }

  /** Writes what appends changed and is not written yet (the backend's `close` does). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const unsaved = [...this.unsaved];
    this.unsaved.clear();
    for (const [sessionId, state] of unsaved) this.save(sessionId, state);
  }

  /**
   * An append's change, written a moment later with the others made meanwhile: rewriting the file
   * at every append cost half a millisecond each (bench/backend-append.mjs), fifty times the append
   * itself. Until then this process reads the change from memory; another process, or this one
   * after a crash, counts the lines past what the file covers, as after any lost update.
   */
  private saveSoon(sessionId: string, state: IndexState): void {
    this.unsaved.set(sessionId, state);
    this.timer ??= setTimeout(() => this.flush(), SAVE_DELAY_MS).unref();
  }

  private save(sessionId: string, state: IndexState): void {
    this.unsaved.delete(sessionId);
    // Writing would make the folder of a session removed meanwhile again.
    if (!existsSync(this.paths.sessionFile(sessionId))) return;
    const path = this.paths.sessionIndexFile(sessionId);
    try {
      // Not durable: what a power cut loses is counted again from the logs.
      writeJsonAtomic(
        path,
        { version: 1, conversations: state.conversations, ...(state.usage ? { usage: state.usage } : {}), words: state.filter.toJSON() },
        { durable: false },
      );
      const stamp = stampOf(path);
      if (stamp !== undefined) this.remember(sessionId, stamp, state);
    } catch {
      // A read-only workspace, or a session removed meanwhile: the next read counts again.
      this.parsed.delete(sessionId);
    }
  }

  /** A state changed in memory but not saved is no longer what its file holds. */
  private forget(sessionId: string): void {
    this.parsed.delete(sessionId);
    this.unsaved.delete(sessionId);
  }

  private remember(sessionId: string, stamp: string, state: IndexState): void {
    if (this.parsed.size >= REMEMBERED && !this.parsed.has(sessionId)) this.parsed.clear();
    this.parsed.set(sessionId, { stamp, state });
  }
}
