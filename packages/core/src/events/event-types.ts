import type { Message, ToolResultBlock, ToolUseBlock, Usage } from '../message.js';

/** Where a conversation event happened: the session, and which conversation in it. */
export interface ConversationRef {
  sessionId: string;
  conversationId: string;
  initiator: string;
  responder: string;
  name?: string | undefined;
}

/**
 * The tokens of one model request, against the agent's window. `total` is
 * `fromProvider + estimated`, and also `system + tools + messages`.
 */
export interface ContextUsage {
  total: number;
  /** The system prompt's tokens. */
  system: number;
  /** The tool definitions' tokens. */
  tools: number;
  /** The messages' tokens (with the provider's figure: what it leaves after system and tools). */
  messages: number;
  /** Tokens the provider reported (the last reply's input, cache and output tokens). */
  fromProvider: number;
  /** Tokens counted here: the messages since that reply (or all parts, without a usable report). */
  estimated: number;
  /**
   * The request was far below every threshold, so the tokenizer was not needed: the figures are
   * UTF-8 byte counts, an upper bound of the tokens (no BPE token is shorter than a byte).
   */
  bounded: boolean;
  /** Tokens the request may hold before the reply's reserve: `window − outputReserve`. */
  limit: number;
}

/**
 * Every event Legion emits, by name, without the `type` and `seq` that every
 * delivered event carries (see `LegionEvent`). Names are `noun:verb`;
 * lifecycles end in `end`.
 *
 * Session events carry `sessionId` (conversation events through
 * `ConversationRef`). Workspace-level events — `tool:register`,
 * `tool:unregister`, and `storage:warning` / `error:raised` about something
 * outside any session (the config, a tool file, an MCP server) — have no
 * session; `storage:warning` and `error:raised` carry `sessionId` when they are
 * about one.
 */
export interface LegionEvents {
  /**
   * A message was appended to a conversation. `author` is the participant who
   * wrote it: the initiator for its messages, the responder for its replies and
   * for the results of the tools it called. `remote` is set when a log follower
   * (`legion.follow`) read it from a log another process appended to.
   */
  'message:sent': ConversationRef & { message: Message; author: string; remote?: true | undefined };
  /**
   * The responder's turn begins. `messageId` is the id of the incoming message
   * (the `message:sent` that follows); absent when a turn paused on approvals resumes.
   */
  'turn:start': ConversationRef & { participantId: string; chain: readonly string[]; messageId?: string | undefined };
  'turn:end': ConversationRef & {
    participantId: string;
    chain: readonly string[];
    status: 'success' | 'error' | 'paused';
    reply?: string | undefined;
    error?: string | undefined;
    durationMs: number;
  };
  /** Text of a model's response as it streams; delivered to whoever listens at that moment, mid-turn included. */
  'text:delta': ConversationRef & { participantId: string; text: string };
  'tool:call': ConversationRef & { participantId: string; toolUse: ToolUseBlock };
  'tool:result': ConversationRef & { participantId: string; toolUse: ToolUseBlock; result: ToolResultBlock; durationMs: number };
  /** A `communicate` call waits for a slot: `limit` calls of this response already run (`limits.maxParallelDelegates`); `position` in the queue, from 1. */
  'delegation:queued': ConversationRef & { participantId: string; toolUseId: string; to: string; position: number; running: number; limit: number };
  /** A queued `communicate` call got its slot and starts now. */
  'delegation:dequeued': ConversationRef & { participantId: string; toolUseId: string; to: string; waitedMs: number };
  'usage:report': ConversationRef & { participantId: string; chain: readonly string[]; usage: Usage; provider: string; model: string; costUsd: number | null };
  /**
   * The tokens of the model request about to be sent: system prompt, tool definitions and
   * messages, how many the provider reported and how many were counted since, against the
   * window's `limit`. Built only while someone listens.
   */
  'context:usage': ConversationRef & { participantId: string; usage: ContextUsage };
  'error:raised': { scope: string; message: string; code?: string | undefined; participantId?: string | undefined; sessionId?: string | undefined };
  /** A file was damaged or unreadable; `sessionId` when the file belongs to a session. */
  'storage:warning': { path: string; offset: number; problem: string; sessionId?: string | undefined };
  /** A model call failed and will be tried again after `waitMs` (the provider's `retry-after`, or backoff). */
  'provider:retry': ConversationRef & { participantId: string; provider: string; model: string; attempt: number; of: number; waitMs: number; reason: string; askedByProvider: boolean };
  /**
   * The older part of a conversation's context was summarized (a `compaction` entry was
   * appended; the messages stay in the log). `reason`: a threshold was crossed (`auto`),
   * someone asked (`manual`: `legion compact`, `/compact`), or the provider said the
   * prompt was too long (`overflow`). `participantId` is the agent whose context it is.
   */
  'context:compacted': ConversationRef & {
    participantId: string;
    reason: 'auto' | 'manual' | 'overflow';
    messageIds: { first: string; last: string; count: number };
    tokensBefore: number;
    tokensAfter: number;
    summarizer: { provider: string; model: string };
  };
  /** A tool became available (registered directly or listed by a tool provider). Workspace-level. */
  'tool:register': { name: string; providerId: string };
  /** A tool went away (its disposer ran, its provider dropped it or was disposed). Workspace-level. */
  'tool:unregister': { name: string; providerId: string };
  /**
   * A tool call was recorded as waiting for someone's approval (durably, in the
   * session's approvals log), before anyone is asked. `requester` is the
   * participant whose tool call it is; `approver` the one up the chain who is
   * asked. Calls of one model response share a `batchId`. `remote` is set
   * when a log follower read it from another process's approvals log.
   */
  'approval:requested': {
    sessionId: string;
    conversationId: string;
    requestId: string;
    batchId: string;
    requester: string;
    approver: string;
    tool: string;
    toolUseId: string;
    input: unknown;
    reason: string;
    chain: readonly string[];
    remote?: true | undefined;
  };
  /**
   * A decision on an approval request was recorded — the only one it will get
   * (of racing deciders, in any process, one wins). `decidedBy` is who decided;
   * `approver` is who was asked (a user may step in for an agent). `remote`:
   * another process decided, and a log follower read it.
   */
  'approval:decided': {
    sessionId: string;
    conversationId: string;
    requestId: string;
    requester: string;
    approver: string;
    tool: string;
    decision: 'approved' | 'rejected';
    decidedBy: string;
    reason?: string | undefined;
    /** The tool was allowed to this requester for the rest of the session. */
    always?: boolean | undefined;
    /** The decision also made this "approve always" rule (see `approval-rule:added`), with this pattern. */
    ruleId?: string | undefined;
    pattern?: string | undefined;
    /** The user surface the decision was given on (`terminal`, `web`, …), when a user gave it on one. */
    medium?: string | undefined;
    remote?: true | undefined;
  };
  /**
   * A message to a user was recorded as a question (durably, in the session's
   * question log) before any surface is asked: any process on the workspace
   * may answer it (`session.answerQuestion`). `remote`: a log follower read it
   * from another process's log.
   */
  'question:asked': {
    sessionId: string;
    conversationId: string;
    questionId: string;
    user: string;
    from: string;
    chain: readonly string[];
    text: string;
    at: string;
    remote?: true | undefined;
  };
  /**
   * A question got its one answer (of racing surfaces and processes, the first
   * recorded wins): `text` is the answer, `medium` the surface it was given
   * on, `answeredBy` the user. `remote`: another process recorded it.
   */
  'question:answered': {
    sessionId: string;
    conversationId: string;
    questionId: string;
    user: string;
    from: string;
    text: string;
    answeredBy: string;
    medium?: string | undefined;
    remote?: true | undefined;
  };
  /** A question's turn ended without an answer (stopped, or no surface could answer): it is answered nowhere any more. */
  'question:withdrawn': {
    sessionId: string;
    conversationId: string;
    questionId: string;
    user: string;
    from: string;
    reason: string;
    remote?: true | undefined;
  };
  /**
   * An "approve always" rule was written (`legion.approvalRules.add`, or an
   * answer with `remember: 'always'` whose decision won), by this process.
   * Workspace-level: rules hold in every session.
   */
  'approval-rule:added': {
    id: string;
    participant: string;
    tool: string;
    pattern?: string | undefined;
    createdBy: string;
    medium?: string | undefined;
    createdAt: string;
    reason?: string | undefined;
  };
  /** An "approve always" rule was removed by this process; the rule's fields when its file could still be read. */
  'approval-rule:removed': { id: string; participant?: string | undefined; tool?: string | undefined; pattern?: string | undefined };
  /** A session was created (by `sessions.create`, or the first `resumeOrCreate` of a workspace). */
  'session:created': { sessionId: string; title?: string | undefined; createdAt: string };
  /**
   * A session's metadata changed: `changed` names the fields (`lastActiveAt`
   * when a top-level message arrives, `title` when it is renamed); `title` and
   * `lastActiveAt` are the values now.
   */
  'session:updated': { sessionId: string; changed: ReadonlyArray<'title' | 'lastActiveAt'>; title?: string | undefined; lastActiveAt: string };
}

export type LegionEventName = keyof LegionEvents;

/**
 * An event as subscribers receive it. `seq` numbers the events this `Legion`
 * delivers, from 1, one more for each event delivered to anyone: a subscriber
 * of every event (`onAny`) sees 1, 2, 3, … with no gap from its first event
 * on, in that order, so a gap means it missed something. Events nobody listens
 * to are not built and take no number; a subscriber of some names sees a
 * rising subsequence.
 */
export type LegionEvent = { [Name in LegionEventName]: { type: Name; seq: number } & LegionEvents[Name] }[LegionEventName];
