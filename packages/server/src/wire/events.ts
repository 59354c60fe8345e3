import { LegionEventSchemas, type LegionEventName } from '@legion-collective/core/vocabulary';
import { z } from 'zod';
import { ParticipantStateNameSchema, TurnEndingOutcomeSchema } from './participants.js';

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

/**
 * Whether the stream carries each of core's events, each exactly as core defines it
 * (`LegionEventSchemas`) with the envelope's `type` and `seq`. Every event is listed, so a new one
 * does not compile until it is decided here (and, if streamed, added to `LegionWireEventSchema`).
 */
const STREAMED = {
  'message:sent': true,
  'turn:start': true,
  'turn:end': true,
  'text:delta': true,
  'tool:call': true,
  'tool:result': true,
  'delegation:queued': true,
  'delegation:dequeued': true,
  'worktree:ready': true,
  'usage:report': true,
  // Measured only while someone listens, at a cost on every model request, for a figure the browser does not show.
  'context:usage': false,
  'context:compacted': true,
  'window:guessed': true,
  'error:raised': true,
  'storage:warning': true,
  'claim:conflict': true,
  'provider:retry': true,
  'approval:requested': true,
  'approval:decided': true,
  'approval-rule:added': true,
  'approval-rule:removed': true,
  'question:asked': true,
  'question:answered': true,
  'question:withdrawn': true,
  'session:created': true,
  'session:updated': true,
  'tool:register': true,
  'tool:unregister': true,
  'config:reloaded': true,
} as const satisfies Record<LegionEventName, boolean>;
export type StreamedEventName = { [Name in LegionEventName]: (typeof STREAMED)[Name] extends true ? Name : never }[LegionEventName];
/** Legion's events the stream carries. */
export const STREAMED_EVENT_NAMES = (Object.keys(STREAMED) as LegionEventName[]).filter(
  (name): name is StreamedEventName => STREAMED[name],
);

/**
 * Core's event of this name with the envelope: nothing is restated here, so the wire cannot drift
 * from core. (The schema is passed beside its name so each export keeps its own inferred type; the
 * parameter's type makes any other event's schema a compile error.)
 */
function legionEvent<const Name extends StreamedEventName, Shape extends z.ZodRawShape>(
  name: Name,
  schema: z.ZodObject<Shape> & (typeof LegionEventSchemas)[Name],
) {
  return schema.extend({ type: z.literal(name), ...envelope });
}

export const MessageSentEventSchema = legionEvent('message:sent', LegionEventSchemas['message:sent']);
export const TurnStartEventSchema = legionEvent('turn:start', LegionEventSchemas['turn:start']);
export const TurnEndEventSchema = legionEvent('turn:end', LegionEventSchemas['turn:end']);
export const TextDeltaEventSchema = legionEvent('text:delta', LegionEventSchemas['text:delta']);
export const ToolCallEventSchema = legionEvent('tool:call', LegionEventSchemas['tool:call']);
export const ToolResultEventSchema = legionEvent('tool:result', LegionEventSchemas['tool:result']);
export const DelegationQueuedEventSchema = legionEvent('delegation:queued', LegionEventSchemas['delegation:queued']);
export const DelegationDequeuedEventSchema = legionEvent('delegation:dequeued', LegionEventSchemas['delegation:dequeued']);
/** An isolated agent's change waits on a human's `legion worktrees apply`: the browser shows it on the conversation. */
export const WorktreeReadyEventSchema = legionEvent('worktree:ready', LegionEventSchemas['worktree:ready']);
export const UsageReportEventSchema = legionEvent('usage:report', LegionEventSchemas['usage:report']);
export const ContextCompactedEventSchema = legionEvent('context:compacted', LegionEventSchemas['context:compacted']);
/** Nobody knew an agent's model, so its window is a guess (once per model and server process); `text` says how to name it. */
export const WindowGuessedEventSchema = legionEvent('window:guessed', LegionEventSchemas['window:guessed']);
export const ErrorRaisedEventSchema = legionEvent('error:raised', LegionEventSchemas['error:raised']);
export const StorageWarningEventSchema = legionEvent('storage:warning', LegionEventSchemas['storage:warning']);
export const ClaimConflictEventSchema = legionEvent('claim:conflict', LegionEventSchemas['claim:conflict']);
export const ProviderRetryEventSchema = legionEvent('provider:retry', LegionEventSchemas['provider:retry']);
export const ApprovalRequestedEventSchema = legionEvent('approval:requested', LegionEventSchemas['approval:requested']);
export const ApprovalDecidedEventSchema = legionEvent('approval:decided', LegionEventSchemas['approval:decided']);
export const ApprovalRuleAddedEventSchema = legionEvent('approval-rule:added', LegionEventSchemas['approval-rule:added']);
export const ApprovalRuleRemovedEventSchema = legionEvent('approval-rule:removed', LegionEventSchemas['approval-rule:removed']);
/** A question to a user was recorded (here or in another process); `questionId` is the id `/api/questions/:id/answer` takes. */
export const QuestionAskedEventSchema = legionEvent('question:asked', LegionEventSchemas['question:asked']);
/** A question got its one answer (here or elsewhere): take it off the list. */
export const QuestionAnsweredEventSchema = legionEvent('question:answered', LegionEventSchemas['question:answered']);
/** A question's turn ended without an answer: it is answered nowhere any more. */
export const QuestionWithdrawnEventSchema = legionEvent('question:withdrawn', LegionEventSchemas['question:withdrawn']);
export const SessionCreatedEventSchema = legionEvent('session:created', LegionEventSchemas['session:created']);
export const SessionUpdatedEventSchema = legionEvent('session:updated', LegionEventSchemas['session:updated']);
export const ToolRegisterEventSchema = legionEvent('tool:register', LegionEventSchemas['tool:register']);
export const ToolUnregisterEventSchema = legionEvent('tool:unregister', LegionEventSchemas['tool:unregister']);
export const ConfigReloadedEventSchema = legionEvent('config:reloaded', LegionEventSchemas['config:reloaded']);

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
  WorktreeReadyEventSchema,
  UsageReportEventSchema,
  ContextCompactedEventSchema,
  WindowGuessedEventSchema,
  ErrorRaisedEventSchema,
  StorageWarningEventSchema,
  ClaimConflictEventSchema,
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
  ConfigReloadedEventSchema,
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
  /** On the user, `user`: the participant who asks them (a question, or an approval). */
  askedBy: z.string().optional(),
  sessionId: z.string().optional(),
  conversationId: z.string().optional(),
  outcome: TurnEndingOutcomeSchema.optional(),
  code: z.string().optional(),
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
