import type { ApprovalRecord, ClaimConflictRecord, LogCursor, SessionBackend, QuestionLogRecord } from '../../store/index.js';
import type { ConversationRef, EventBus, Message } from '../../kernel/index.js';
import { errorMessage } from '../../kernel/index.js';
import { emitApprovalRecord, emitQuestionRecord } from '../../hitl/index.js';
import { parseConversationId } from '../../session/index.js';

/**
 * Where a follower is in each conversation log, by conversation id (opaque
 * cursors of the backend), and how many approval and question records it has
 * read (under `approvals` and `questions`, keys no conversation id can be) and where it is in the
 * conflicts log (under `conflicts`): give it back to follow on without a gap.
 */
export type FollowCursor = Readonly<Record<string, string>>;

const APPROVALS = 'approvals';
/** Question records read so far, like `approvals` (no conversation id can be it either). */
const QUESTIONS = 'questions';
/** Where the follower is in the conflicts log (a backend cursor); no conversation id can be it either. */
const CONFLICTS = 'conflicts';
export interface FollowOptions {
  /**
   * `end` (default): only what is appended from now on becomes events; what
   * the logs already hold is history (`session.recentMessages`). A cursor from
   * an earlier follower's `cursor()`: everything appended after it, so a UI
   * that reconnects misses nothing.
   */
  from?: 'end' | FollowCursor | undefined;
  /** The poll behind change notifications (default 500 ms). */
  pollMs?: number | undefined;
  /**
   * With a cursor `from` (or `{}`, from the logs' start): messages and records written before this
   * time (ISO 8601, as their `at`) were shown already and are read past without an event. For a
   * session that was left unfollowed while idle: what it wrote since is told, its history is not.
   */
  since?: string | undefined;
}

/** Stops following when called. */
export type Follower = (() => void) & {
  readonly sessionId: string;
  /** Where the follower is in each conversation: pass it as `from` to continue there later. */
  cursor(): FollowCursor;
  /** Reads the logs now, without waiting for a notification or the poll; resolves once what it read is told. */
  check(): Promise<void>;
};

/** This many ids of messages this process appended are remembered until the follower reads past them. */
const OWN_LIMIT = 10_000;

/**
 * Turns messages another process appends to a session's conversation logs
 * into `message:sent` events, and its approval requests and decisions into
 * `approval:requested` / `approval:decided`, its questions to users and their
 * outcomes into `question:asked` / `question:answered` / `question:withdrawn`,
 * the writes its file claims refused into `claim:conflict`, all marked `remote`, on this
 * process's bus. What this process appended (it emitted those events itself)
 * is skipped.
 */
export async function followSession(
  sessionId: string,
  services: { events: EventBus; backend: SessionBackend },
  options: FollowOptions = {},
): Promise<Follower> {
  const { events, backend } = services;
  // Appends of this process: their events were emitted when they were written (before the follower reads them).
  const own = new Set<string>();
  const remember = (key: string): void => {
    own.add(key);
    if (own.size > OWN_LIMIT) own.delete(own.values().next().value!);
  };
  const ownEvents = [
    events.on('message:sent', (event) => {
      if (event.sessionId === sessionId && !event.remote) remember(event.message.id);
    }),
    events.on('approval:requested', (event) => {
      if (event.sessionId === sessionId && !event.remote) remember(`request ${event.requestId}`);
    }),
    events.on('approval:decided', (event) => {
      if (event.sessionId === sessionId && !event.remote) remember(`decision ${event.requestId}`);
    }),
    events.on('question:asked', (event) => {
      if (event.sessionId === sessionId && !event.remote) remember(`question ${event.questionId}`);
    }),
    events.on('question:answered', (event) => {
      if (event.sessionId === sessionId && !event.remote) remember(`outcome ${event.questionId}`);
    }),
    events.on('question:withdrawn', (event) => {
      if (event.sessionId === sessionId && !event.remote) remember(`outcome ${event.questionId}`);
    }),
    events.on('claim:conflict', (event) => {
      if (event.sessionId === sessionId && !event.remote) remember(`conflict ${event.conflictId}`);
    }),
  ];
  /** Conversation id → where this follower is in its log (undefined: it appeared after the follower started; read from its start). */
  const positions = new Map<string, LogCursor | undefined>();
  /** Approval records read so far, by `request <id>` / `decision <request id>`: the log only grows, so new ones are the unseen. */
  const seenApprovals = new Set<string>();
  /** Question records read so far, by `question <id>` / `outcome <question id>`. */
  const seenQuestions = new Set<string>();
  /** Where this follower is in the conflicts log (undefined: at its start). */
  let conflictsAt: LogCursor | undefined;
  const refs = new Map<string, ConversationRef | undefined>();
  const failed = new Set<string>();
  let closed = false;
  const since = options.since !== undefined ? Date.parse(options.since) : Number.NaN;
  /** Written before `since`: read past in silence (ISO times of one machine's clock compare as dates). */
  const before = (at: string): boolean => Number.isFinite(since) && Date.parse(at) < since;

  const warn = (source: string, problem: string): void => events.emit('storage:warning', { path: source, offset: 0, problem, sessionId });
  /** A log this Legion cannot read (written by a newer one, unreadable): said once, never thrown into a timer. */
  const failedOnce = (source: string, error: unknown): void => {
    const problem = `not followed: ${errorMessage(error)}`;
    const key = `${source}\u0000${problem}`;
    if (failed.has(key)) return;
    failed.add(key);
    warn(source, problem);
  };
  const refOf = (conversationId: string): ConversationRef | undefined => {
    if (refs.has(conversationId)) return refs.get(conversationId);
    let ref: ConversationRef | undefined;
    try {
      ref = { sessionId, conversationId, ...parseConversationId(conversationId) };
    } catch {
      // Said once: the name is remembered as not followed.
      warn(
        `conversation ${conversationId} of session ${sessionId}`,
        'not followed: its name is no conversation id (<initiator>__<responder>[__<name>])',
      );
    }
    refs.set(conversationId, ref);
    return ref;
  };
  const keyOf = (record: ApprovalRecord): string => (record.kind === 'request' ? `request ${record.id}` : `decision ${record.requestId}`);
  const questionKeyOf = (record: QuestionLogRecord): string =>
    record.kind === 'question' ? `question ${record.id}` : `outcome ${record.questionId}`;

  const readConversation = async (conversationId: string): Promise<void> => {
    const ref = refOf(conversationId);
    if (!ref || closed) return;
    let read: { messages: Message[]; cursor: LogCursor };
    try {
      read = await backend.conversations.readSince(ref, positions.get(conversationId));
    } catch (error) {
      failedOnce(`conversation ${conversationId} of session ${sessionId}`, error);
      return;
    }
    if (closed) return;
    positions.set(conversationId, read.cursor);
    for (const message of read.messages) {
      if (own.delete(message.id) || before(message.at)) continue;
      events.emit('message:sent', { ...ref, message, author: authorOf(ref, message), remote: true });
    }
  };
  const readApprovals = async (): Promise<void> => {
    let records: ApprovalRecord[];
    try {
      records = await backend.approvals.read(sessionId);
    } catch (error) {
      failedOnce(`approvals of session ${sessionId}`, error);
      return;
    }
    if (closed) return;
    const requests = new Map(records.flatMap((record) => (record.kind === 'request' ? [[record.id, record] as const] : [])));
    for (const record of records) {
      const key = keyOf(record);
      if (seenApprovals.has(key)) continue;
      seenApprovals.add(key);
      if (!own.delete(key) && !before(record.at)) emitApprovalRecord(events, sessionId, record, (id) => requests.get(id), true);
    }
  };
  const readQuestions = async (): Promise<void> => {
    let records: QuestionLogRecord[];
    try {
      records = await backend.questions.read(sessionId);
    } catch (error) {
      failedOnce(`questions of session ${sessionId}`, error);
      return;
    }
    if (closed) return;
    const questions = new Map(records.flatMap((record) => (record.kind === 'question' ? [[record.id, record] as const] : [])));
    for (const record of records) {
      const key = questionKeyOf(record);
      if (seenQuestions.has(key)) continue;
      seenQuestions.add(key);
      if (!own.delete(key) && !before(record.at)) emitQuestionRecord(events, sessionId, record, (id) => questions.get(id), true);
    }
  };
  const readConflicts = async (): Promise<void> => {
    let read: { records: ClaimConflictRecord[]; cursor: LogCursor };
    try {
      read = await backend.conflicts.readSince(sessionId, conflictsAt);
    } catch (error) {
      failedOnce(`conflicts of session ${sessionId}`, error);
      return;
    }
    if (closed) return;
    conflictsAt = read.cursor;
    for (const record of read.records) {
      if (own.delete(`conflict ${record.id}`) || before(record.at)) continue;
      const ref = refOf(record.conversationId);
      if (!ref) continue;
      const { conversationId: _conversation, kind: _kind, version: _version, id: conflictId, ...conflict } = record;
      events.emit('claim:conflict', { ...ref, ...conflict, conflictId, remote: true });
    }
  };
  const readAll = async (): Promise<void> => {
    if (closed) return;
    await readApprovals();
    await readQuestions();
    await readConflicts();
    let ids: string[];
    try {
      ids = await backend.conversations.list(sessionId);
    } catch (error) {
      failedOnce(`conversations of session ${sessionId}`, error);
      return;
    }
    for (const id of ids) await readConversation(id);
  };

  // One read at a time, in order; calls that come while one waits to start share it.
  let tail: Promise<void> = Promise.resolve();
  let waiting: Promise<void> | undefined;
  const check = (): Promise<void> => {
    if (closed) return Promise.resolve();
    if (waiting) return waiting;
    const next = tail.then(() => {
      waiting = undefined;
      return readAll();
    });
    waiting = next;
    tail = next.catch(() => undefined);
    return next;
  };

  // Where to start: the end of what is there now, or the cursor an earlier follower gave.
  const from = options.from ?? 'end';
  const initialApprovals = from === 'end' ? Number.POSITIVE_INFINITY : Number(from[APPROVALS] ?? 0);
  try {
    (await backend.approvals.read(sessionId)).slice(0, initialApprovals).forEach((record) => seenApprovals.add(keyOf(record)));
  } catch (error) {
    failedOnce(`approvals of session ${sessionId}`, error);
  }
  const initialQuestions = from === 'end' ? Number.POSITIVE_INFINITY : Number(from[QUESTIONS] ?? 0);
  try {
    (await backend.questions.read(sessionId)).slice(0, initialQuestions).forEach((record) => seenQuestions.add(questionKeyOf(record)));
  } catch (error) {
    failedOnce(`questions of session ${sessionId}`, error);
  }
  if (from === 'end') {
    try {
      conflictsAt = (await backend.conflicts.readSince(sessionId)).cursor;
    } catch (error) {
      failedOnce(`conflicts of session ${sessionId}`, error);
    }
    for (const id of await backend.conversations.list(sessionId)) {
      const ref = refOf(id);
      if (!ref) continue;
      try {
        positions.set(id, await backend.conversations.end(ref));
      } catch (error) {
        failedOnce(`conversation ${id} of session ${sessionId}`, error);
      }
    }
  } else {
    conflictsAt = from[CONFLICTS] as LogCursor | undefined;
    for (const [id, cursor] of Object.entries(from))
      if (id !== APPROVALS && id !== QUESTIONS && id !== CONFLICTS) positions.set(id, cursor as LogCursor);
  }

  const unwatch = backend.watch?.(sessionId, () => void check());
  const timer = setInterval(() => void check(), options.pollMs ?? 500);
  // A follower alone never keeps a process alive.
  timer.unref();
  if (from !== 'end') await check();

  const stop = (): void => {
    closed = true;
    clearInterval(timer);
    unwatch?.();
    for (const off of ownEvents) off();
  };
  const cursor = (): FollowCursor => {
    const current: Record<string, string> = { [APPROVALS]: String(seenApprovals.size), [QUESTIONS]: String(seenQuestions.size) };
    if (conflictsAt !== undefined) current[CONFLICTS] = conflictsAt;
    for (const [id, position] of positions) if (position !== undefined) current[id] = position;
    return current;
  };
  return Object.assign(stop, { sessionId, cursor, check });
}

/**
 * Who wrote a logged message (the log keeps roles, not authors): the
 * responder its replies and the results of its tools, the initiator the rest.
 */
export function authorOf(ref: Pick<ConversationRef, 'initiator' | 'responder'>, message: Message): string {
  if (message.role === 'assistant') return ref.responder;
  const toolResultsOnly = message.content.length > 0 && message.content.every((block) => block.type === 'tool_result');
  return toolResultsOnly ? ref.responder : ref.initiator;
}
