import { z } from 'zod';
import { ToolResultBlockSchema, ToolUseBlockSchema, UsageSchema, WireMessageSchema } from './messages.js';
import { ParticipantStateNameSchema } from './participants.js';

/**
 * The server-sent events of `GET /api/events?session=ID`. Every SSE message has
 * `id: <epoch>-<seq>`; `event:` is one of `SSE_EVENT_NAMES`; `data:` is JSON:
 * - `legion`: one of Legion's events (`LegionWireEvent`), `type` naming it;
 * - `state`: a participant's state changed (`StateEventData`);
 * - `session`: a session appeared, in this process or another (`SessionEventData`);
 * - `reset`: the stream cannot resume where the client was (`ResetEventData`): reload through REST.
 * `seq` (in the id and the data) numbers this server's stream from 1 without gaps; `epoch` is
 * random per server process. Reconnect with `Last-Event-ID` (or `?lastEventId=`) to get exactly
 * what was missed. A comment `: ping` comes every 15 s.
 */
export const SSE_EVENT_NAMES = ['legion', 'state', 'session', 'reset'] as const;
export type SseEventName = (typeof SSE_EVENT_NAMES)[number];

const envelope = { seq: z.number().int().positive() };
/** Where a conversation event happened. */
const conversationRef = {
  sessionId: z.string(),
  conversationId: z.string(),
  initiator: z.string(),
  responder: z.string(),
  name: z.string().optional(),
};
const chain = z.array(z.string());
/** Set on events a log follower read from another process's logs (a `legion run` in a terminal). */
const remote = z.literal(true).optional();

function legionEvent<const Type extends string, Shape extends z.ZodRawShape>(type: Type, shape: Shape) {
  return z.object({ type: z.literal(type), ...envelope, ...shape });
}

export const MessageSentEventSchema = legionEvent('message:sent', { ...conversationRef, message: WireMessageSchema.omit({ author: true }), author: z.string(), remote });
export const TurnStartEventSchema = legionEvent('turn:start', { ...conversationRef, participantId: z.string(), chain, messageId: z.string().optional() });
export const TurnEndEventSchema = legionEvent('turn:end', {
  ...conversationRef,
  participantId: z.string(),
  chain,
  status: z.enum(['success', 'error', 'paused']),
  reply: z.string().optional(),
  error: z.string().optional(),
  durationMs: z.number(),
});
export const TextDeltaEventSchema = legionEvent('text:delta', { ...conversationRef, participantId: z.string(), text: z.string() });
export const ToolCallEventSchema = legionEvent('tool:call', { ...conversationRef, participantId: z.string(), toolUse: ToolUseBlockSchema });
export const ToolResultEventSchema = legionEvent('tool:result', { ...conversationRef, participantId: z.string(), toolUse: ToolUseBlockSchema, result: ToolResultBlockSchema, durationMs: z.number() });
export const DelegationQueuedEventSchema = legionEvent('delegation:queued', { ...conversationRef, participantId: z.string(), toolUseId: z.string(), to: z.string(), position: z.number(), running: z.number(), limit: z.number() });
export const DelegationDequeuedEventSchema = legionEvent('delegation:dequeued', { ...conversationRef, participantId: z.string(), toolUseId: z.string(), to: z.string(), waitedMs: z.number() });
export const UsageReportEventSchema = legionEvent('usage:report', { ...conversationRef, participantId: z.string(), chain, usage: UsageSchema, provider: z.string(), model: z.string(), costUsd: z.number().nullable() });
export const ContextCompactedEventSchema = legionEvent('context:compacted', {
  ...conversationRef,
  participantId: z.string(),
  reason: z.enum(['auto', 'manual', 'overflow']),
  messageIds: z.object({ first: z.string(), last: z.string(), count: z.number() }),
  tokensBefore: z.number(),
  tokensAfter: z.number(),
  summarizer: z.object({ provider: z.string(), model: z.string() }),
});
export const ErrorRaisedEventSchema = legionEvent('error:raised', { scope: z.string(), message: z.string(), code: z.string().optional(), participantId: z.string().optional(), sessionId: z.string().optional() });
export const StorageWarningEventSchema = legionEvent('storage:warning', { path: z.string(), offset: z.number(), problem: z.string(), sessionId: z.string().optional() });
export const ProviderRetryEventSchema = legionEvent('provider:retry', { ...conversationRef, participantId: z.string(), provider: z.string(), model: z.string(), attempt: z.number(), of: z.number(), waitMs: z.number(), reason: z.string(), askedByProvider: z.boolean() });
export const ApprovalRequestedEventSchema = legionEvent('approval:requested', {
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
  chain,
  remote,
});
export const ApprovalDecidedEventSchema = legionEvent('approval:decided', {
  sessionId: z.string(),
  conversationId: z.string(),
  requestId: z.string(),
  requester: z.string(),
  approver: z.string(),
  tool: z.string(),
  decision: z.enum(['approved', 'rejected']),
  decidedBy: z.string(),
  reason: z.string().optional(),
  always: z.boolean().optional(),
  ruleId: z.string().optional(),
  pattern: z.string().optional(),
  medium: z.string().optional(),
  remote,
});
export const ApprovalRuleAddedEventSchema = legionEvent('approval-rule:added', {
  id: z.string(),
  participant: z.string(),
  tool: z.string(),
  pattern: z.string().optional(),
  createdBy: z.string(),
  medium: z.string().optional(),
  createdAt: z.string(),
  reason: z.string().optional(),
});
export const ApprovalRuleRemovedEventSchema = legionEvent('approval-rule:removed', { id: z.string(), participant: z.string().optional(), tool: z.string().optional(), pattern: z.string().optional() });
/** A question to a user was recorded (here or in another process); `questionId` is the id `/api/questions/:id/answer` takes. */
export const QuestionAskedEventSchema = legionEvent('question:asked', {
  sessionId: z.string(),
  conversationId: z.string(),
  questionId: z.string(),
  /** The user it is addressed to. */
  user: z.string(),
  from: z.string(),
  chain,
  text: z.string(),
  at: z.string(),
  remote,
});
/** A question got its one answer (here or elsewhere): take it off the list. */
export const QuestionAnsweredEventSchema = legionEvent('question:answered', {
  sessionId: z.string(),
  conversationId: z.string(),
  questionId: z.string(),
  user: z.string(),
  from: z.string(),
  text: z.string(),
  answeredBy: z.string(),
  medium: z.string().optional(),
  remote,
});
/** A question's turn ended without an answer: it is answered nowhere any more. */
export const QuestionWithdrawnEventSchema = legionEvent('question:withdrawn', {
  sessionId: z.string(),
  conversationId: z.string(),
  questionId: z.string(),
  user: z.string(),
  from: z.string(),
  reason: z.string(),
  remote,
});
export const SessionCreatedEventSchema = legionEvent('session:created', { sessionId: z.string(), title: z.string().optional(), createdAt: z.string() });
export const SessionUpdatedEventSchema = legionEvent('session:updated', { sessionId: z.string(), changed: z.array(z.enum(['title', 'lastActiveAt'])), title: z.string().optional(), lastActiveAt: z.string() });
export const ToolRegisterEventSchema = legionEvent('tool:register', { name: z.string(), providerId: z.string() });
export const ToolUnregisterEventSchema = legionEvent('tool:unregister', { name: z.string(), providerId: z.string() });

/** `event: legion`. A client ignores a `type` it does not know (the server may add some). */
export const LegionWireEventSchema = z.discriminatedUnion('type', [
  MessageSentEventSchema,
  TurnStartEventSchema,
  TurnEndEventSchema,
  TextDeltaEventSchema,
  ToolCallEventSchema,
  ToolResultEventSchema,
  DelegationQueuedEventSchema,
  DelegationDequeuedEventSchema,
  UsageReportEventSchema,
  ContextCompactedEventSchema,
  ErrorRaisedEventSchema,
  StorageWarningEventSchema,
  ProviderRetryEventSchema,
  ApprovalRequestedEventSchema,
  ApprovalDecidedEventSchema,
  ApprovalRuleAddedEventSchema,
  ApprovalRuleRemovedEventSchema,
  QuestionAskedEventSchema,
  QuestionAnsweredEventSchema,
  QuestionWithdrawnEventSchema,
  SessionCreatedEventSchema,
  SessionUpdatedEventSchema,
  ToolRegisterEventSchema,
  ToolUnregisterEventSchema,
]);
export type LegionWireEvent = z.infer<typeof LegionWireEventSchema>;
export type LegionWireEventType = LegionWireEvent['type'];
/** The event of one type: `WireEventOf<'text:delta'>`. */
export type WireEventOf<Type extends LegionWireEventType> = Extract<LegionWireEvent, { type: Type }>;

/** `event: state`. */
export const StateEventDataSchema = z.object({
  ...envelope,
  participantId: z.string(),
  state: ParticipantStateNameSchema,
  detail: z.string().optional(),
  sessionId: z.string().optional(),
  conversationId: z.string().optional(),
});
export type StateEventData = z.infer<typeof StateEventDataSchema>;

/** `event: session`: a session appeared (created here, or by another process on the workspace). */
export const SessionEventDataSchema = z.object({
  ...envelope,
  sessionId: z.string(),
  created: z.literal(true),
  title: z.string().optional(),
  createdAt: z.string().optional(),
});
export type SessionEventData = z.infer<typeof SessionEventDataSchema>;

/** `event: reset`: the server cannot replay from the client's `Last-Event-ID` (another server process, or too old). */
export const ResetEventDataSchema = z.object({
  /** The stream goes on after this seq (its id is the reset's id): 0 when nothing was sent yet. */
  seq: z.number().int().nonnegative(),
  reason: z.enum(['other_epoch', 'too_old', 'malformed_id']),
  message: z.string(),
});
export type ResetEventData = z.infer<typeof ResetEventDataSchema>;
