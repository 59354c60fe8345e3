import { MessageSchema } from '@legion-collective/core';
import { z } from 'zod';

// The line format of `legion run --output stream-json`: one JSON object per line, each with a `type`.
// These names are a public contract for scripts (documented in the README): add fields, never rename.
// Types are inferred from these schemas, so the writer cannot drift from them; the CLI's tests parse
// real output with them.

const Conversation = {
  sessionId: z.string(),
  /** `<initiator>__<responder>[__<name>]`: the conversation the event happened in. */
  conversationId: z.string(),
};

const Totals = z.object({
  calls: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
  costUsd: z.number(),
  unpricedCalls: z.number(),
});

/** A waiting approval request, as `legion approvals --json` lists it. */
const Approval = z.object({
  id: z.string(),
  at: z.string(),
  requester: z.string(),
  approver: z.string(),
  tool: z.string(),
  input: z.unknown(),
  reason: z.string(),
  conversationId: z.string(),
  status: z.enum(['pending', 'approved', 'rejected']),
});

/** A question an agent asked the user, as the run reports it (`questions` in the report, `question:*` lines). */
export const ReportedQuestionSchema = z.object({
  /** The question's id in the session (`legion answer ID "…"` answers it). */
  id: z.string().optional(),
  conversationId: z.string(),
  /** Who asked: the last of `chain`. */
  from: z.string(),
  /** The user asked. */
  to: z.string(),
  /** Participants waiting on the answer, outermost first; ends with `from`. */
  chain: z.array(z.string()),
  text: z.string(),
  /** Whether the asker got an answer (the terminal, another surface, `--answer`), or was told the user is unavailable. */
  answered: z.boolean(),
  /** Nobody could be asked: the run paused on it; `legion answer ID "…"` answers it and resumes the run's work. */
  pending: z.literal(true).optional(),
  answer: z.string().optional(),
  error: z.string().optional(),
});
export type ReportedQuestion = z.infer<typeof ReportedQuestionSchema>;

/** The one object `--output json` prints, and the last line of `--output stream-json` (with `type: "result"`). */
export const RunReportSchema = z.object({
  sessionId: z.string(),
  conversationId: z.string(),
  from: z.string(),
  to: z.string(),
  status: z.enum(['success', 'error', 'approval_required', 'answer_required']),
  reply: z.string().nullable(),
  truncated: z.literal(true).optional(),
  error: z.string().optional(),
  code: z.string().optional(),
  approvals: z.array(Approval).optional(),
  questions: z.array(ReportedQuestionSchema),
  participants: z.array(z.string()),
  usage: z.object({ total: Totals, byParticipant: z.record(z.string(), z.object({ own: Totals, withDelegates: Totals })), byConversation: z.record(z.string(), Totals) }),
  sessionUsage: Totals,
  warnings: z.array(z.string()),
});
export type RunReport = z.infer<typeof RunReportSchema>;

export const StreamLineSchema = z.discriminatedUnion('type', [
  /** First line: where the message goes. */
  z.object({ type: z.literal('run:start'), ...Conversation, from: z.string(), to: z.string(), message: z.string() }),
  /** A participant's turn in a conversation begins; `chain` lists who waits on it, outermost first, ending with the sender. */
  z.object({ type: z.literal('turn:start'), ...Conversation, participantId: z.string(), chain: z.array(z.string()) }),
  /** Model text as it streams. */
  z.object({ type: z.literal('text:delta'), ...Conversation, participantId: z.string(), text: z.string() }),
  /** A whole message as appended to the conversation's log (`author` wrote it). */
  z.object({ type: z.literal('message'), ...Conversation, author: z.string(), message: MessageSchema }),
  /** A tool call starts / ends (every tool but `communicate`, which is a delegation). */
  z.object({ type: z.literal('tool:call'), ...Conversation, participantId: z.string(), toolUseId: z.string(), tool: z.string(), input: z.unknown() }),
  z.object({ type: z.literal('tool:result'), ...Conversation, participantId: z.string(), toolUseId: z.string(), tool: z.string(), isError: z.boolean(), content: z.string(), durationMs: z.number() }),
  /** `from` asks `to` through `communicate` (`conversationId` is `from`'s own conversation, where the call is). */
  z.object({ type: z.literal('delegation:start'), ...Conversation, from: z.string(), to: z.string(), toolUseId: z.string(), message: z.string(), conversation: z.string().optional() }),
  /** A `communicate` call waits for a slot: `limit` delegations of the same response run already (`limits.maxParallelDelegates`); its `delegation:start` came before. */
  z.object({ type: z.literal('delegation:queued'), ...Conversation, from: z.string(), to: z.string(), toolUseId: z.string(), position: z.number(), running: z.number(), limit: z.number() }),
  z.object({ type: z.literal('delegation:end'), ...Conversation, from: z.string(), to: z.string(), toolUseId: z.string(), isError: z.boolean(), result: z.string(), durationMs: z.number() }),
  z.object({
    type: z.literal('approval:requested'),
    ...Conversation,
    requestId: z.string(),
    requester: z.string(),
    approver: z.string(),
    tool: z.string(),
    input: z.unknown(),
    reason: z.string(),
    chain: z.array(z.string()),
  }),
  z.object({
    type: z.literal('approval:decided'),
    ...Conversation,
    requestId: z.string(),
    requester: z.string(),
    approver: z.string(),
    tool: z.string(),
    decision: z.enum(['approved', 'rejected']),
    decidedBy: z.string(),
    reason: z.string().optional(),
    always: z.boolean().optional(),
    medium: z.string().optional(),
  }),
  /** An agent asked the user a question (`from` asked `to`; `chain` as in `turn:start`). */
  z.object({ type: z.literal('question:asked'), ...Conversation, from: z.string(), to: z.string(), chain: z.array(z.string()), text: z.string() }),
  /** What the asker got: the `--answer` text, or (`answered: false`) the error saying the user is unavailable. */
  z.object({ type: z.literal('question:answered'), ...Conversation, from: z.string(), to: z.string(), answered: z.boolean(), answer: z.string().optional(), error: z.string().optional() }),
  /** One model call's tokens and cost (`costUsd` null when the model has no price). */
  z.object({
    type: z.literal('usage'),
    ...Conversation,
    participantId: z.string(),
    chain: z.array(z.string()),
    provider: z.string(),
    model: z.string(),
    inputTokens: z.number(),
    outputTokens: z.number(),
    cacheReadTokens: z.number().optional(),
    cacheWriteTokens: z.number().optional(),
    cacheWrite1hTokens: z.number().optional(),
    costUsd: z.number().nullable(),
  }),
  /**
   * The older part of `participantId`'s context was summarized (`reason`: `auto` past its threshold, `overflow` after the
   * provider said the prompt was too long); the messages stay in the log. Tokens are the context's before and after.
   */
  z.object({
    type: z.literal('context:compacted'),
    ...Conversation,
    participantId: z.string(),
    reason: z.enum(['auto', 'manual', 'overflow']),
    messageIds: z.object({ first: z.string(), last: z.string(), count: z.number() }),
    tokensBefore: z.number(),
    tokensAfter: z.number(),
    summarizer: z.object({ provider: z.string(), model: z.string() }),
  }),
  /** A failed model call that will be tried again after `waitMs`. */
  z.object({ type: z.literal('retry'), ...Conversation, participantId: z.string(), provider: z.string(), model: z.string(), attempt: z.number(), of: z.number(), waitMs: z.number(), reason: z.string() }),
  z.object({ type: z.literal('turn:end'), ...Conversation, participantId: z.string(), status: z.enum(['success', 'error', 'paused']), reply: z.string().optional(), error: z.string().optional(), durationMs: z.number() }),
  /** A damaged file or a failure outside any turn (also written to stderr). */
  z.object({ type: z.literal('warning'), sessionId: z.string().optional(), message: z.string() }),
  z.object({ type: z.literal('error'), sessionId: z.string().optional(), scope: z.string(), message: z.string(), code: z.string().optional() }),
  /** Last line: the same object `--output json` prints. */
  RunReportSchema.extend({ type: z.literal('result') }),
]);
export type StreamLine = z.infer<typeof StreamLineSchema>;
