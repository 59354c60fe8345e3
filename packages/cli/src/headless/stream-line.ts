import {
  ApprovalViewSchema,
  ConversationRefSchema,
  LegionEventSchemas,
  QuestionViewSchema,
  ToolResultBlockSchema,
  ToolUseBlockSchema,
  UsageSchema,
  UsageTotalsSchema,
} from '@legion-collective/core/vocabulary';
import { z } from 'zod';
import { STREAM_LINE_NAMES, type EventLineName } from './stream-line-names.js';

// The line format of `legion run --output stream-json`: one JSON object per line, each with a `type`.
// These names are a public contract for scripts (documented in docs/reference/stream-json.md): add fields, never rename.
// A line about an event is core's event (`LegionEventSchemas`) cut to the fields docs/reference/stream-json.md lists,
// named through the one mapping of stream-line-names.ts: nothing is defined twice, so a line cannot
// drift from the event it reports. Types are inferred from these schemas, so the writer cannot drift
// from them either; the CLI's tests parse real output with them. Only tests build these schemas
// (the CLI imports their types), so they cost a run nothing.

const events = LegionEventSchemas;
const Conversation = ConversationRefSchema.pick({ sessionId: true, conversationId: true });

/** The line an event becomes: its fields (picked from core's schema), and the mapped name as `type`. */
function line<const Name extends EventLineName, Shape extends z.ZodRawShape>(type: Name, fields: z.ZodObject<Shape>) {
  return fields.extend({ type: z.literal(type) });
}

const Totals = UsageTotalsSchema;

/** A waiting approval request, as `legion approvals --json` lists it: core's approval view, without the decision's fields. */
const Approval = ApprovalViewSchema.pick({
  id: true,
  at: true,
  requester: true,
  approver: true,
  tool: true,
  input: true,
  reason: true,
  conversationId: true,
  status: true,
});

/** A question an agent asked the user, as the run reports it (`questions` in the report, `question:*` lines). */
export const ReportedQuestionSchema = QuestionViewSchema.pick({ conversationId: true, from: true, chain: true, text: true }).extend({
  /** The question's id in the session (`legion answer ID "…"` answers it); absent when none was recorded. */
  id: QuestionViewSchema.shape.id.optional(),
  /** The user asked (core's `user`: the documented name here is `to`). */
  to: QuestionViewSchema.shape.user,
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
  usage: z.object({
    total: Totals,
    byParticipant: z.record(z.string(), z.object({ own: Totals, withDelegates: Totals })),
    byConversation: z.record(z.string(), Totals),
  }),
  sessionUsage: Totals,
  warnings: z.array(z.string()),
});
export type RunReport = z.infer<typeof RunReportSchema>;

const toolCall = events['tool:call'].pick({ sessionId: true, conversationId: true, participantId: true });
const toolResult = events['tool:result'].pick({ sessionId: true, conversationId: true, durationMs: true });
/** A `communicate` call's fields that a delegation line shows (its input's `to`, `message`, `conversation`). */
const delegation = { from: events['tool:call'].shape.participantId, to: z.string(), toolUseId: ToolUseBlockSchema.shape.id };
const asked = events['question:asked'];

export const StreamLineSchema = z.discriminatedUnion('type', [
  /** First line: where the message goes. */
  Conversation.extend({ type: z.literal('run:start'), from: z.string(), to: z.string(), message: z.string() }),
  /** A participant's turn in a conversation begins; `chain` lists who waits on it, outermost first, ending with the sender. */
  line(
    STREAM_LINE_NAMES['turn:start'].line,
    events['turn:start'].pick({ sessionId: true, conversationId: true, participantId: true, chain: true }),
  ),
  /** Model text as it streams. */
  line(
    STREAM_LINE_NAMES['text:delta'].line,
    events['text:delta'].pick({ sessionId: true, conversationId: true, participantId: true, text: true }),
  ),
  /** A whole message as appended to the conversation's log (`author` wrote it). */
  line(
    STREAM_LINE_NAMES['message:sent'].line,
    events['message:sent'].pick({ sessionId: true, conversationId: true, author: true, message: true }),
  ),
  /** A tool call starts / ends (every tool but `communicate`, which is a delegation): the tool use's block, flattened. */
  line(
    STREAM_LINE_NAMES['tool:call'].line,
    toolCall.extend({ toolUseId: ToolUseBlockSchema.shape.id, tool: ToolUseBlockSchema.shape.name, input: ToolUseBlockSchema.shape.input }),
  ),
  line(
    STREAM_LINE_NAMES['tool:result'].line,
    toolResult.extend({
      participantId: events['tool:result'].shape.participantId,
      toolUseId: ToolUseBlockSchema.shape.id,
      tool: ToolUseBlockSchema.shape.name,
      isError: z.boolean(),
      content: ToolResultBlockSchema.shape.content,
      fileChange: ToolResultBlockSchema.shape.fileChange,
    }),
  ),
  /** `from` asks `to` through `communicate` (`conversationId` is `from`'s own conversation, where the call is). */
  line(
    STREAM_LINE_NAMES['tool:call'].communicate,
    Conversation.extend({ ...delegation, message: z.string(), conversation: z.string().optional() }),
  ),
  /** A `communicate` call waits for a slot: `limit` delegations of the same response run already (`limits.maxParallelDelegates`); its `delegation:start` came before. */
  line(
    STREAM_LINE_NAMES['delegation:queued'].line,
    events['delegation:queued']
      .pick({ sessionId: true, conversationId: true, to: true, toolUseId: true, position: true, running: true, limit: true })
      .extend({ from: delegation.from }),
  ),
  /** An isolated agent's change (`isolation: "worktree"`) waits on a human: `legion worktrees apply <worktreeId>` brings it into the main tree. */
  line(
    STREAM_LINE_NAMES['worktree:ready'].line,
    events['worktree:ready'].pick({
      sessionId: true,
      conversationId: true,
      participantId: true,
      callerId: true,
      worktreeId: true,
      toolUseId: true,
      files: true,
    }),
  ),
  line(
    STREAM_LINE_NAMES['tool:result'].communicate,
    toolResult.extend({ ...delegation, isError: z.boolean(), result: ToolResultBlockSchema.shape.content }),
  ),
  line(
    STREAM_LINE_NAMES['approval:requested'].line,
    events['approval:requested'].pick({
      sessionId: true,
      conversationId: true,
      requestId: true,
      requester: true,
      approver: true,
      tool: true,
      input: true,
      reason: true,
      sandbox: true,
      chain: true,
    }),
  ),
  line(
    STREAM_LINE_NAMES['approval:decided'].line,
    events['approval:decided'].pick({
      sessionId: true,
      conversationId: true,
      requestId: true,
      requester: true,
      approver: true,
      tool: true,
      decision: true,
      decidedBy: true,
      reason: true,
      always: true,
      medium: true,
      cancelled: true,
    }),
  ),
  /** An agent asked the user a question (`from` asked `to`; `chain` as in `turn:start`). Written by the question tracker, not mapped from an event. */
  asked
    .pick({ sessionId: true, conversationId: true, from: true, chain: true, text: true })
    .extend({ type: z.literal('question:asked'), to: asked.shape.user }),
  /** What the asker got: the `--answer` text, or (`answered: false`) the error saying the user is unavailable. */
  asked.pick({ sessionId: true, conversationId: true, from: true }).extend({
    type: z.literal('question:answered'),
    to: asked.shape.user,
    answered: z.boolean(),
    answer: z.string().optional(),
    error: z.string().optional(),
  }),
  /** One model call's tokens and cost (`costUsd` null when the model has no price): the usage report with its usage flattened. */
  line(
    STREAM_LINE_NAMES['usage:report'].line,
    events['usage:report']
      .pick({ sessionId: true, conversationId: true, participantId: true, chain: true, provider: true, model: true, costUsd: true })
      .extend(UsageSchema.shape),
  ),
  /**
   * The older part of `participantId`'s context was summarized (`reason`: `auto` past its threshold, `overflow` after the
   * provider said the prompt was too long); the messages stay in the log. Tokens are the context's before and after.
   */
  line(
    STREAM_LINE_NAMES['context:compacted'].line,
    events['context:compacted'].pick({
      sessionId: true,
      conversationId: true,
      participantId: true,
      reason: true,
      messageIds: true,
      tokensBefore: true,
      tokensAfter: true,
      summarizer: true,
    }),
  ),
  /** Nobody knew `participantId`'s model, so its window is a guess (once per model and process); `text` says how to name it. */
  line(
    STREAM_LINE_NAMES['window:guessed'].line,
    events['window:guessed'].pick({
      sessionId: true,
      conversationId: true,
      participantId: true,
      provider: true,
      model: true,
      window: true,
      text: true,
    }),
  ),
  /** A failed model call that will be tried again after `waitMs`. */
  line(
    STREAM_LINE_NAMES['provider:retry'].line,
    events['provider:retry'].pick({
      sessionId: true,
      conversationId: true,
      participantId: true,
      provider: true,
      model: true,
      attempt: true,
      of: true,
      waitMs: true,
      reason: true,
    }),
  ),
  /**
   * A turn ends: `outcome` is what became of it (`succeeded`, `failed`, `cancelled`, `paused`), `code` why a failed or
   * cancelled one ended. `status` is the older word (a cancelled turn is `error` there), kept for scripts that read it.
   */
  line(
    STREAM_LINE_NAMES['turn:end'].line,
    events['turn:end'].pick({
      sessionId: true,
      conversationId: true,
      participantId: true,
      outcome: true,
      status: true,
      reply: true,
      code: true,
      error: true,
      durationMs: true,
    }),
  ),
  /** An agent's write did not happen: another agent's running turn holds the file (`holder`). */
  line(
    STREAM_LINE_NAMES['claim:conflict'].line,
    events['claim:conflict'].pick({
      sessionId: true,
      conversationId: true,
      participantId: true,
      tool: true,
      path: true,
      holder: true,
    }),
  ),
  /** A damaged file or a failure outside any turn (also written to stderr). */
  line(STREAM_LINE_NAMES['storage:warning'].line, events['storage:warning'].pick({ sessionId: true }).extend({ message: z.string() })),
  line(STREAM_LINE_NAMES['error:raised'].line, events['error:raised'].pick({ sessionId: true, scope: true, message: true, code: true })),
  /** Last line: the same object `--output json` prints. */
  RunReportSchema.extend({ type: z.literal('result') }),
]);
export type StreamLine = z.infer<typeof StreamLineSchema>;
