import { z } from 'zod';
import { MessageSchema, ToolResultBlockSchema, ToolUseBlockSchema, TurnOutcomeSchema, UsageSchema } from '../message.js';
import { SandboxNoteSchema } from '../sandbox-note.js';

// The one definition of Legion's events: zod schemas, with every type inferred from them. The
// server's wire events (`@legion-collective/server/wire`) and `legion run`'s stream-json lines are
// derived from these schemas, so a field added here reaches them or fails their tests.
//
// Only the vocabulary entry (`@legion-collective/core/vocabulary`) exports these schemas as values;
// the engine imports this file for its types alone (erased at build time), so a process that never
// validates an event never builds them (start-up: see bench/cli-startup.mjs).

/** Participants waiting on a turn, outermost first; ends with its sender. */
const ChainSchema = z.array(z.string()).readonly();
/** Set on events a log follower (`legion.follow`) read from another process's logs. */
const RemoteSchema = z.literal(true).optional();

/** Where a conversation event happened: the session, and which conversation in it. */
/** The claim that refused a write: whose turn holds the file, where, what it is doing, since when. */
export const ClaimHolderSchema = z.object({
  participantId: z.string(),
  sessionId: z.string(),
  conversationId: z.string(),
  doing: z.string(),
  since: z.string(),
});

export const ConversationRefSchema = z.object({
  sessionId: z.string(),
  /** `<initiator>__<responder>[__<name>]`. */
  conversationId: z.string(),
  initiator: z.string(),
  responder: z.string(),
  name: z.string().optional(),
});
export type ConversationRef = z.infer<typeof ConversationRefSchema>;

/**
 * The tokens of one model request, against the agent's window. `total` is
 * `fromProvider + estimated`, and also `system + tools + messages`.
 */
export const ContextUsageSchema = z.object({
  total: z.number(),
  /** The system prompt's tokens. */
  system: z.number(),
  /** The tool definitions' tokens. */
  tools: z.number(),
  /** The messages' tokens (with the provider's figure: what it leaves after system and tools). */
  messages: z.number(),
  /** Tokens the provider reported (the last reply's input, cache and output tokens). */
  fromProvider: z.number(),
  /** Tokens counted here: the messages since that reply (or all parts, without a usable report). */
  estimated: z.number(),
  /**
   * The request was far below every threshold, so the tokenizer was not needed: the figures are
   * UTF-8 byte counts, an upper bound of the tokens (no BPE token is shorter than a byte).
   */
  bounded: z.boolean(),
  /** Tokens the request may hold before the reply's reserve: `window − outputReserve`. */
  limit: z.number(),
});
export type ContextUsage = z.infer<typeof ContextUsageSchema>;

/** A conversation event's fields: where it happened, plus its own. */
function inConversation<Shape extends z.ZodRawShape>(shape: Shape) {
  return ConversationRefSchema.extend(shape);
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
export const LegionEventSchemas = {
  /**
   * A message was appended to a conversation. `author` is the participant who
   * wrote it: the initiator for its messages, the responder for its replies and
   * for the results of the tools it called. `remote` is set when a log follower
   * (`legion.follow`) read it from a log another process appended to.
   */
  'message:sent': inConversation({ message: MessageSchema, author: z.string(), remote: RemoteSchema }),
  /**
   * The responder's turn begins. `messageId` is the id of the incoming message
   * (the `message:sent` that follows); absent when a turn paused on approvals resumes.
   */
  'turn:start': inConversation({ participantId: z.string(), chain: ChainSchema, messageId: z.string().optional() }),
  /**
   * The responder's turn ends. `outcome` is what became of it (`paused`: it waits on approvals
   * or questions, and resumes when they are answered); `code` names why a `failed` or `cancelled` turn ended
   * (`cancelled`, `provider_bad_request`, …). `status` is the older, coarser word, kept for
   * subscribers written before `outcome`: a cancelled turn is `error` there.
   */
  'turn:end': inConversation({
    participantId: z.string(),
    chain: ChainSchema,
    outcome: TurnOutcomeSchema,
    status: z.enum(['success', 'error', 'paused']),
    reply: z.string().optional(),
    code: z.string().optional(),
    error: z.string().optional(),
    durationMs: z.number(),
  }),
  /** Text of a model's response as it streams; delivered to whoever listens at that moment, mid-turn included. */
  'text:delta': inConversation({ participantId: z.string(), text: z.string() }),
  'tool:call': inConversation({ participantId: z.string(), toolUse: ToolUseBlockSchema }),
  'tool:result': inConversation({
    participantId: z.string(),
    toolUse: ToolUseBlockSchema,
    result: ToolResultBlockSchema,
    durationMs: z.number(),
  }),
  /** A `communicate` call waits for a slot: `limit` calls of this response already run (`limits.maxParallelDelegates`); `position` in the queue, from 1. */
  'delegation:queued': inConversation({
    participantId: z.string(),
    toolUseId: z.string(),
    to: z.string(),
    position: z.number(),
    running: z.number(),
    limit: z.number(),
  }),
  /** A queued `communicate` call got its slot and starts now. */
  'delegation:dequeued': inConversation({ participantId: z.string(), toolUseId: z.string(), to: z.string(), waitedMs: z.number() }),
  /**
   * An isolated turn (`isolation: "worktree"`) ended with a change: `participantId`'s files in
   * worktree `worktreeId` wait on a human's `legion worktrees apply` (or `discard`); the main tree is
   * unchanged until then. The conversation is the one whose `communicate` call (`toolUseId`) waited on it;
   * without `toolUseId`, the conversation a participant holds directly with the isolated agent (a user's
   * message from any surface), whose worktree stays for its next turns until applied or discarded.
   */
  'worktree:ready': inConversation({
    participantId: z.string(),
    callerId: z.string(),
    worktreeId: z.string(),
    toolUseId: z.string().optional(),
    files: z.array(z.string()),
  }),
  /** One model call's tokens and cost (`costUsd` null when the model has no known price). */
  'usage:report': inConversation({
    participantId: z.string(),
    chain: ChainSchema,
    usage: UsageSchema,
    provider: z.string(),
    model: z.string(),
    costUsd: z.number().nullable(),
  }),
  /**
   * The tokens of the model request about to be sent: system prompt, tool definitions and
   * messages, how many the provider reported and how many were counted since, against the
   * window's `limit`. Built only while someone listens.
   */
  'context:usage': inConversation({ participantId: z.string(), usage: ContextUsageSchema }),
  'error:raised': z.object({
    scope: z.string(),
    message: z.string(),
    code: z.string().optional(),
    participantId: z.string().optional(),
    sessionId: z.string().optional(),
  }),
  /**
   * An agent's write did not happen: another agent's running turn holds the file's claim (it wrote
   * the file, or declared it would, in that turn). In the blocked writer's conversation; `holder` is
   * the claim: whose turn, where, what it is doing, since when. The writer's tool result says the same.
   * `conflictId` names its record in the session's conflicts log; `remote`: a log follower read it
   * there, from another process.
   */
  'claim:conflict': inConversation({
    conflictId: z.string(),
    at: z.string(),
    participantId: z.string(),
    tool: z.string(),
    /** Workspace-relative. */
    path: z.string(),
    holder: ClaimHolderSchema,
    remote: RemoteSchema,
  }),
  /** A file was damaged or unreadable; `sessionId` when the file belongs to a session. */
  'storage:warning': z.object({ path: z.string(), offset: z.number(), problem: z.string(), sessionId: z.string().optional() }),
  /** A model call failed and will be tried again after `waitMs` (the provider's `retry-after`, or backoff). */
  'provider:retry': inConversation({
    participantId: z.string(),
    provider: z.string(),
    model: z.string(),
    attempt: z.number(),
    of: z.number(),
    waitMs: z.number(),
    reason: z.string(),
    askedByProvider: z.boolean(),
  }),
  /**
   * The older part of a conversation's context was summarized (a `compaction` entry was
   * appended; the messages stay in the log). `reason`: a threshold was crossed (`auto`),
   * someone asked (`manual`: `legion compact`, `/compact`), or the provider said the
   * prompt was too long (`overflow`). `participantId` is the agent whose context it is.
   */
  'context:compacted': inConversation({
    participantId: z.string(),
    reason: z.enum(['auto', 'manual', 'overflow']),
    messageIds: z.object({ first: z.string(), last: z.string(), count: z.number() }),
    tokensBefore: z.number(),
    tokensAfter: z.number(),
    summarizer: z.object({ provider: z.string(), model: z.string() }),
  }),
  /**
   * Nobody knew the agent's model (not the config, its endpoint, the model table or the bundled
   * catalogue), so its context window is a guess: said once per process and model, on the first turn
   * that uses it. `text` is the whole notice, its fix included, as every surface prints it.
   */
  'window:guessed': inConversation({
    participantId: z.string(),
    provider: z.string(),
    model: z.string(),
    window: z.number(),
    text: z.string(),
  }),
  /**
   * The workspace's config files (the global config, `.legion/config.json`, the participant files)
   * changed and were read again before a message: what applies from that message on. `changes`
   * names dotted config keys and `participant <id>`s, never values; `restartNeeded` the changed
   * keys that only a new process takes (MCP servers, storage, the shell's environment, telemetry).
   * An edit that does not load is an `error:raised` (code `config_invalid`) instead. Workspace-level.
   */
  'config:reloaded': z.object({ changes: z.array(z.string()), restartNeeded: z.array(z.string()) }),
  /** A tool became available (registered directly or listed by a tool provider). Workspace-level. */
  'tool:register': z.object({ name: z.string(), providerId: z.string() }),
  /** A tool went away (its disposer ran, its provider dropped it or was disposed). Workspace-level. */
  'tool:unregister': z.object({ name: z.string(), providerId: z.string() }),
  /**
   * A tool call was recorded as waiting for someone's approval (durably, in the
   * session's approvals log), before anyone is asked. `requester` is the
   * participant whose tool call it is; `approver` the one up the chain who is
   * asked. Calls of one model response share a `batchId`. `remote` is set
   * when a log follower read it from another process's approvals log.
   */
  'approval:requested': z.object({
    sessionId: z.string(),
    conversationId: z.string(),
    requestId: z.string(),
    batchId: z.string(),
    requester: z.string(),
    approver: z.string(),
    tool: z.string(),
    toolUseId: z.string(),
    input: z.unknown(),
    reason: z.string(),
    /** For a command a model wrote: whether it runs in the OS sandbox, as the request recorded it. */
    sandbox: SandboxNoteSchema.optional(),
    chain: ChainSchema,
    remote: RemoteSchema,
  }),
  /**
   * A decision on an approval request was recorded — the only one it will get
   * (of racing deciders, in any process, one wins). `decidedBy` is who decided;
   * `approver` is who was asked (a user may step in for an agent). `remote`:
   * another process decided, and a log follower read it.
   */
  'approval:decided': z.object({
    sessionId: z.string(),
    conversationId: z.string(),
    requestId: z.string(),
    requester: z.string(),
    approver: z.string(),
    tool: z.string(),
    decision: z.enum(['approved', 'rejected']),
    decidedBy: z.string(),
    reason: z.string().optional(),
    /** The tool was allowed to this requester for the rest of the session. */
    always: z.boolean().optional(),
    /** The decision also made this "approve always" rule (see `approval-rule:added`), with this pattern. */
    ruleId: z.string().optional(),
    pattern: z.string().optional(),
    /** The user surface the decision was given on (`terminal`, `web`, …), when a user gave it on one. */
    medium: z.string().optional(),
    /** Rejected because the turn that asked ended before anyone decided (`settleEndedTree`): nobody rejected it. */
    cancelled: z.literal(true).optional(),
    remote: RemoteSchema,
  }),
  /**
   * A message to a user was recorded as a question (durably, in the session's
   * question log) before any surface is asked: any process on the workspace
   * may answer it (`session.answerQuestion`). `remote`: a log follower read it
   * from another process's log.
   */
  'question:asked': z.object({
    sessionId: z.string(),
    conversationId: z.string(),
    questionId: z.string(),
    /** The user it is addressed to. */
    user: z.string(),
    /** Who asks: the last of `chain`. */
    from: z.string(),
    chain: ChainSchema,
    text: z.string(),
    at: z.string(),
    remote: RemoteSchema,
  }),
  /**
   * A question got its one answer (of racing surfaces and processes, the first
   * recorded wins): `text` is the answer, `medium` the surface it was given
   * on, `answeredBy` the user. `remote`: another process recorded it.
   */
  'question:answered': z.object({
    sessionId: z.string(),
    conversationId: z.string(),
    questionId: z.string(),
    user: z.string(),
    from: z.string(),
    text: z.string(),
    answeredBy: z.string(),
    medium: z.string().optional(),
    remote: RemoteSchema,
  }),
  /** A question's turn ended without an answer (stopped, or no surface could answer): it is answered nowhere any more. */
  'question:withdrawn': z.object({
    sessionId: z.string(),
    conversationId: z.string(),
    questionId: z.string(),
    user: z.string(),
    from: z.string(),
    reason: z.string(),
    remote: RemoteSchema,
  }),
  /**
   * An "approve always" rule was written (`legion.approvalRules.add`, or an
   * answer with `remember: 'always'` whose decision won), by this process.
   * Workspace-level: rules hold in every session.
   */
  'approval-rule:added': z.object({
    id: z.string(),
    participant: z.string(),
    tool: z.string(),
    pattern: z.string().optional(),
    createdBy: z.string(),
    medium: z.string().optional(),
    createdAt: z.string(),
    reason: z.string().optional(),
  }),
  /** An "approve always" rule was removed by this process; the rule's fields when its file could still be read. */
  'approval-rule:removed': z.object({
    id: z.string(),
    participant: z.string().optional(),
    tool: z.string().optional(),
    pattern: z.string().optional(),
  }),
  /** A session was created (by `sessions.create`, or the first `resumeOrCreate` of a workspace). */
  'session:created': z.object({ sessionId: z.string(), title: z.string().optional(), createdAt: z.string() }),
  /**
   * A session's metadata changed: `changed` names the fields (`lastActiveAt`
   * when a top-level message arrives, `title` when it is renamed); `title` and
   * `lastActiveAt` are the values now.
   */
  'session:updated': z.object({
    sessionId: z.string(),
    changed: z.array(z.enum(['title', 'lastActiveAt'])).readonly(),
    title: z.string().optional(),
    lastActiveAt: z.string(),
  }),
};

/** Every event Legion emits, by name: the payloads `LegionEventSchemas` define. */
export type LegionEvents = { [Name in keyof typeof LegionEventSchemas]: z.infer<(typeof LegionEventSchemas)[Name]> };

export type LegionEventName = keyof LegionEvents;

/** Every event name, in the order `LegionEventSchemas` lists them. */
export const LEGION_EVENT_NAMES = Object.keys(LegionEventSchemas) as LegionEventName[];

/**
 * An event as subscribers receive it. `seq` numbers the events this `Legion`
 * delivers, from 1, one more for each event delivered to anyone: a subscriber
 * of every event (`onAny`) sees 1, 2, 3, … with no gap from its first event
 * on, in that order, so a gap means it missed something. Events nobody listens
 * to are not built and take no number; a subscriber of some names sees a
 * rising subsequence.
 */
export type LegionEvent = { [Name in LegionEventName]: { type: Name; seq: number } & LegionEvents[Name] }[LegionEventName];
