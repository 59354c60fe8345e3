import type { z } from 'zod';
import type { ApprovalDecisionRecord, ApprovalRequestRecord } from './records/approval-records.js';
import type { QuestionOutcomeRecord, QuestionRecord } from './records/question-records.js';
import type { CompactionEntry, CompactionEntryInput, HeaderEntry, LogEntry, MessageEntry, NoteEntry } from './records/log-entry.js';
import type { Message } from '../kernel/index.js';
import type { SessionMeta } from './records/session-meta.js';
import type { UsageRecord } from './records/usage-summary.js';
import type { UsageTotals } from './records/usage-totals.js';
import type { FileClaimStore } from './records/file-claim.js';
import type { ClaimConflictRecord } from './records/claim-conflict-record.js';

/**
 * Where a session keeps everything it stores: its metadata, its conversation
 * logs and their locks, approvals, usage, per-agent state and artifacts.
 *
 * Every call is async and names records by ids, never by file paths, so that
 * the same calls can be served by files on one machine (`FileSessionBackend`),
 * by memory (`MemorySessionBackend`) or by a database shared by many machines.
 * Nothing here assumes one process: locks are leases with an owner and an
 * expiry, and a reader follows what others append through a cursor.
 *
 * Records read back are validated (zod) by the backend; a broken one is
 * skipped and reported as a warning, never returned half-formed. Every backend
 * passes `describeSessionBackendContract` from `@legion-collective/core/testing`.
 */
export interface SessionBackend {
  readonly sessions: SessionRecords;
  readonly conversations: ConversationLogs;
  /** Approval requests and their one decision each. */
  readonly approvals: ApprovalLog;
  /** Messages to users that a process offered to its surfaces, and their one answer: what lets any process answer them. */
  readonly questions: QuestionLog;
  readonly usage: UsageLog;
  /** Writes a file claim refused, in the refused caller's session: what tells other processes' surfaces of the conflict. */
  readonly conflicts: ConflictLog;
  readonly agentState: AgentStateStore;
  readonly artifacts: ArtifactStore;
  /** The workspace's files claimed by running turns (not a session's: every session of the store shares them). */
  readonly fileClaims: FileClaimStore;
  /** What a list of sessions shows of each, and a word index of the messages: kept as entries are appended, so neither reads a log. */
  readonly index: SessionIndex;
  /**
   * A hint that something of this session may have changed (a conversation or
   * the approvals log was appended to, here or in another process): followers
   * read on it at once instead of waiting for their poll. Optional, and never
   * all there is: a follower polls as well. Returns the function that stops it.
   */
  watch?(sessionId: string, onChange: () => void): () => void;
  /** Releases what this instance holds open (descriptors, leases it still holds). Stored data stays. */
  close(): Promise<void>;
}

/** Something a read skipped: where (a description for people, not a handle), at which offset, and why. */
export interface StorageWarning {
  source: string;
  offset: number;
  problem: string;
  /** The session the record belongs to, when it belongs to one. */
  sessionId?: string | undefined;
}

export interface SessionBackendOptions {
  /** Told about every record a read had to skip or repair. */
  onWarning?: ((warning: StorageWarning) => void) | undefined;
  /** The clock leases expire by (milliseconds since the epoch); tests move it. Default `Date.now`. */
  now?: (() => number) | undefined;
}

export interface SessionListing {
  /** Most recently active first; equal times by id, newest id first. */
  sessions: SessionMeta[];
  /** Sessions that exist but cannot be read: left out of `sessions`, never thrown. */
  warnings: StorageWarning[];
}

export interface SessionRecords {
  /** A new session with a fresh id, now as its creation and last-active time. */
  create(options?: { title?: string | undefined }): Promise<SessionMeta>;
  /**
   * The latest session, or a new one when there is none. Callers that race on an
   * empty store (several processes starting at once) all get the same one session.
   */
  latestOrCreate(): Promise<{ session: SessionMeta; created: boolean }>;
  /** Undefined when there is no such session; throws a `LegionError` for an id that cannot be one or a record that cannot be read. */
  get(id: string): Promise<SessionMeta | undefined>;
  /** Changes the session's last-active time or title; throws `SessionNotFoundError` when it does not exist. */
  update(id: string, changes: { lastActiveAt?: string | undefined; title?: string | undefined }): Promise<SessionMeta>;
  list(): Promise<SessionListing>;
  /**
   * The most recently active session (cheaply: not by reading every session).
   * When it has to look at every session after all, what it skips goes to `onWarning`.
   */
  latest(): Promise<SessionMeta | undefined>;
  /**
   * Deletes the session and everything it stores (conversations, approvals, usage, state,
   * artifacts), for every instance at once; false when there was no such session. Callers
   * hold every conversation's lease first, so no turn runs in what is being removed.
   */
  remove(id: string): Promise<boolean>;
  /**
   * Stores a session under its own id with its metadata as given (creation and last-active
   * time, title): what a copy from another store needs. False, changing nothing, when a
   * session with that id exists already.
   */
  restore(meta: SessionMeta): Promise<boolean>;
}

/** One conversation of one session. */
export interface ConversationAddress {
  sessionId: string;
  /** `<initiator>__<responder>[__<name>]`. */
  conversationId: string;
}

/** Where a reader has read up to in one conversation log. Opaque: only the backend that made it reads it. */
export type LogCursor = string & { readonly __brand: 'LogCursor' };

/** What may be appended after the header. */
export type AppendableEntry = MessageEntry | NoteEntry | CompactionEntryInput;

export interface ConversationContext {
  /** The last compaction point, if any: its summary stands for everything before it. */
  compaction: CompactionEntry | undefined;
  /**
   * The messages the model sees after the summary, oldest first: the compaction's kept
   * messages (logged before it) and every message after it; all of them if there is none.
   */
  messages: Message[];
  /** Just past the last entry read: `readSince` from here returns what is appended later. */
  cursor: LogCursor;
}

export interface ConversationLogs {
  /** Writes the header if the conversation has none; returns the header stored (which may be an earlier one). */
  ensureHeader(address: ConversationAddress, header: HeaderEntry): Promise<HeaderEntry>;
  header(address: ConversationAddress): Promise<HeaderEntry | undefined>;
  /**
   * Appends one entry under the conversation's lease, which the caller holds and names; returns the
   * cursor just past the entry. The lease is checked with the write, as one step (a fencing token):
   * if it was taken over (it expired while its holder was paused) or released, nothing is written and
   * `LeaseLostError` is thrown, so a holder that lost its lease cannot write beside its successor.
   */
  append(address: ConversationAddress, entry: AppendableEntry, lease: Lease): Promise<LogCursor>;
  /** The newest `limit` messages, oldest first, without reading the rest. */
  recent(address: ConversationAddress, limit: number): Promise<Message[]>;
  /** What a model needs: the last compaction point and the messages since, without reading what came before. */
  context(address: ConversationAddress): Promise<ConversationContext>;
  /** The cursor at the current end of the log, for a follower that starts now. */
  end(address: ConversationAddress): Promise<LogCursor>;
  /**
   * Messages appended after `cursor` (undefined: from the log's start), by this
   * instance or any other on the same store, and the cursor past them. An entry
   * still being written is left for a later call. `compacted` says a compaction entry
   * was among what was read: a loaded context is stale, `context` gives the new one.
   */
  readSince(
    address: ConversationAddress,
    cursor: LogCursor | undefined,
  ): Promise<{ messages: Message[]; cursor: LogCursor; compacted?: boolean | undefined }>;
  /** Makes appended entries durable (a file backend fsyncs); a no-op where every append already is. */
  flush(address: ConversationAddress): Promise<void>;
  /**
   * Every entry after the header (messages, notes, compaction points), oldest first, as stored:
   * what a copy to another store needs. A broken entry is skipped with a warning.
   */
  entries(address: ConversationAddress): Promise<Exclude<LogEntry, HeaderEntry>[]>;
  /** Ids of the session's conversations that have a log, sorted. */
  list(sessionId: string): Promise<string[]>;
  /**
   * Takes the conversation's lock as a lease, never waiting. A lease whose
   * holder died, or whose expiry has passed without a renewal, is taken over.
   */
  acquire(address: ConversationAddress, owner: string, options: { ttlMs: number }): Promise<AcquireResult>;
}

export interface LeaseHolder {
  /** The owner the holder gave when it acquired. */
  owner: string;
  /** ISO time after which the lease may be taken over unless renewed; undefined for a lock that lasts as long as its holder lives. */
  expiresAt: string | undefined;
}

export interface Lease {
  readonly owner: string;
  /**
   * The fencing token: new at every acquisition (a takeover gets another), unchanged by `renew`.
   * Every append made under the lease carries it, and the backend refuses an append whose token
   * no longer holds the conversation.
   */
  readonly token: string;
  /** ISO time after which the lease may be taken over unless renewed; moved by `renew`. */
  readonly expiresAt: string;
  /** Extends the lease by its ttl from now; throws `LeaseLostError` if it was taken over meanwhile. */
  renew(): Promise<void>;
  /** Gives the lock up; a no-op if it was already released or taken over. */
  release(): Promise<void>;
}

export type AcquireResult = { acquired: true; lease: Lease } | { acquired: false; holder: LeaseHolder | undefined };

/** The outcome of a claim: every record written, or none because some key was claimed first (`taken`: the records that hold those keys). */
export type ClaimResult<Claim> = { ok: true } | { ok: false; taken: Claim[] };

/**
 * One append-only log of records per session, some of which claim a key once: the approvals log
 * (a decision claims its request), the questions log (an outcome claims its question), the usage
 * ledger (no claims). A backend implements it once, for every `RecordLogFormat`.
 */
export interface RecordLog<Appended, Claim = never> {
  /** Appends a record that claims nothing. Records that claim a key go through `claim`. */
  append(sessionId: string, record: Appended): Promise<void>;
  /**
   * Writes the records if, and only if, none of their keys is claimed yet, atomically across every
   * instance and process on the store: the first claim for a key wins, and a later one writes
   * nothing and gets the records that took the keys.
   */
  claim(sessionId: string, records: readonly Claim[]): Promise<ClaimResult<Claim>>;
  /**
   * Every record in the order it was written, in today's version (older records are migrated as
   * they are read, through the format's `reader`, and stay stored as they were written); a claim is
   * there from the moment it won, even if its writer died before logging it (the file backend).
   */
  read(sessionId: string): Promise<Array<Appended | Claim>>;
  /**
   * The records written after `cursor` (from the start without one), by this instance or any other
   * on the same store, and the cursor to read on from. A record still being written is left for a
   * later call. Records are migrated with what this call reads (a version 1 approval request whose
   * links precede the cursor is read without them: `read` has the whole log); a claim whose writer
   * died before logging it is in `read` only.
   */
  readSince(sessionId: string, cursor?: LogCursor): Promise<{ records: Array<Appended | Claim>; cursor: LogCursor }>;
}

/** Requests, appended, and their decisions, claimed by request id: the first decide wins. */
export type ApprovalLog = RecordLog<ApprovalRequestRecord, ApprovalDecisionRecord>;
/** The outcome of deciding approvals: all decisions recorded, or none because some request was decided first. */
export type DecideResult = ClaimResult<ApprovalDecisionRecord>;

/**
 * A session's questions to users and their outcomes (answers, withdrawals), claimed by question id.
 * Kept apart from the approvals log on purpose: an older Legion reads that log whole and would
 * warn about every question record it cannot parse, at every read, while a log it does not know
 * of it never opens; and a question is no tool call (no frames, no rules, no resume of its own).
 */
export type QuestionLog = RecordLog<QuestionRecord, QuestionOutcomeRecord>;
/** The outcome of settling a question: recorded, or not because it was settled first (by `taken`). */
export type SettleResult = { ok: true } | { ok: false; taken: QuestionOutcomeRecord };

/** One record per model call: running totals read on from a cursor instead of reading the ledger again. */
export type UsageLog = RecordLog<UsageRecord>;

/** One record per write a file claim refused; followers read on from a cursor and tell each once. */
export type ConflictLog = RecordLog<ClaimConflictRecord>;

/** What a record log is called where it is stored: a file backend's `<name>.jsonl`, a database's log id. */
import type { RecordLogName } from './records/record-log-name.js';
export type { RecordLogName };

/** One stored record as read: today's record, nothing (a record kept only for migrating later ones), or why it cannot be read. */
export type RecordReading<Entry> = { ok: true; record: Entry | undefined } | { ok: false; problem: string };

/**
 * What a backend needs to know of one record log to store it, beyond the generic shape: given by
 * core for every log of the port (`APPROVAL_LOG`, `QUESTION_LOG`, `USAGE_LOG`, `CONFLICT_LOG`), so a backend's one
 * `RecordLog` implementation serves them all.
 */
export interface RecordLogFormat<Appended, Claim = never> {
  readonly name: RecordLogName;
  /** What one record is called in warnings and errors: "approval record". */
  readonly what: string;
  /** Whether an append or claim wakes the session's followers (`SessionBackend.watch`): approvals and questions do, usage does not. */
  readonly wakesFollowers: boolean;
  /**
   * A reader for one pass over the log, oldest first: each stored record (parsed JSON) in, validated
   * and migrated to today's version out. It keeps state between the records of its pass (a version 1
   * approval request is migrated with the link records before it), so each pass takes a new one.
   */
  reader(): (stored: unknown) => RecordReading<Appended | Claim>;
  /** Whether a record read is a claim. */
  isClaim(record: Appended | Claim): record is Claim;
  /** The key a claim settles: a decision's request id, an outcome's question id. */
  claimKey(claim: Claim): string;
  /** The key a record waits to see claimed (a request's id, a question's id), if it does: where a claim not yet logged is looked for. */
  awaitedKey(record: Appended | Claim): string | undefined;
  /** A claim stored alone (a claim file, the winner a database holds) is checked with this. */
  readonly claimSchema: z.ZodType<Claim>;
  /** The record's kind (`request`, `decision`, `usage`, ...), for a store that indexes it. */
  kindOf(record: Appended | Claim): string;
}

/** One agent's state of one kind (`todos`, `scratchbook`, …) in one session. */
export interface AgentStateKey {
  sessionId: string;
  kind: string;
  agentId: string;
}

export interface AgentStateStore {
  /** The stored document, validated by `schema`; undefined when there is none. A document `schema` rejects throws `ConfigError`. */
  get<T>(key: AgentStateKey, schema: z.ZodType<T>): Promise<T | undefined>;
  /** Replaces the document whole (readers see the old one or the new one, never a mix). */
  put(key: AgentStateKey, value: unknown): Promise<void>;
  /** Agents that have state of this kind in the session, sorted. */
  list(sessionId: string, kind: string): Promise<string[]>;
  /** The state kinds the session holds documents of, sorted: with `list`, what a copy needs to find every document. */
  kinds(sessionId: string): Promise<string[]>;
}

export interface ArtifactInfo {
  name: string;
  bytes: number;
}

export interface ArtifactStore {
  /** Stores (or replaces, whole) an artifact; text is stored as UTF-8. */
  put(sessionId: string, name: string, content: string | Uint8Array): Promise<void>;
  get(sessionId: string, name: string): Promise<Uint8Array | undefined>;
  getText(sessionId: string, name: string): Promise<string | undefined>;
  /** Sorted by name. */
  list(sessionId: string): Promise<ArtifactInfo[]>;
}

/** One conversation as a list of sessions shows it. */
export interface ConversationTally {
  conversationId: string;
  /** Its messages, as `recent` would return them all (notes and compaction points are no messages). */
  messages: number;
  /** When its newest message was written. */
  lastMessageAt: string | undefined;
}

/** A session as a list of sessions shows it: its conversations counted, its model calls summed. */
export interface SessionTally {
  /** Every conversation that has a log, sorted by id. */
  conversations: ConversationTally[];
  usage: UsageTotals;
}

/** A message whose text has every word searched for. */
export interface MessageHit {
  sessionId: string;
  conversationId: string;
  message: Message;
}

export interface MessageSearch {
  /** Words (as `searchWords` splits them): a message matches when its text has each of them, as a whole word, in any case. */
  words: readonly string[];
  /** The sessions to look in, most recently active first: a backend that reads session by session stops once older ones can hold no newer hit. */
  sessions: readonly { id: string; lastActiveAt: string }[];
  /** At most this many hits. */
  limit: number;
}

/**
 * Kept by the backend beside the logs, as they are appended to, so that a page of sessions and a
 * search for a word found nowhere read no log. What a crash leaves behind is repaired from the
 * logs, which stay the truth.
 */
export interface SessionIndex {
  /** The session's conversations with their message counts, and its usage totals; throws `SessionNotFoundError` when there is no such session. */
  tally(sessionId: string): Promise<SessionTally>;
  /** Messages with every word of `search.words`, newest first (by their time), at most `search.limit`. */
  search(search: MessageSearch): Promise<MessageHit[]>;
}
