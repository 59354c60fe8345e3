// `@legion-collective/core/vocabulary`: the one definition of what Legion says to the outside —
// messages, events, approval and question views — as zod schemas, with the types inferred from
// them. The server's wire format (`@legion-collective/server/wire`, its OpenAPI document) and `legion
// run`'s stream-json lines are derived from these; nothing else defines them again.
//
// A separate entry, not the main one: it reaches zod and nothing else of core (lint-enforced), so
// a browser or a client of the server can validate with it, and the engine, which needs only the
// types, never builds these schemas at start-up.
export {
  ContentBlockSchema,
  MessageSchema,
  TextBlockSchema,
  ToolResultBlockSchema,
  ToolUseBlockSchema,
  TurnEndingSchema,
  TurnOutcomeSchema,
  UsageSchema,
} from './kernel/message.js';
export type { ContentBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock, TurnEnding, TurnOutcome, Usage } from './kernel/message.js';
export { ContextUsageSchema, ConversationRefSchema, LEGION_EVENT_NAMES, LegionEventSchemas } from './kernel/events/event-types.js';
export type { ContextUsage, ConversationRef, LegionEvent, LegionEventName, LegionEvents } from './kernel/events/event-types.js';
export { ApprovalViewSchema } from './store/records/approval-view.js';
export type { ApprovalView } from './store/records/approval-view.js';
export { QuestionViewSchema } from './store/records/question-view.js';
export type { QuestionView } from './store/records/question-view.js';
export { UsageTotalsSchema } from './store/records/usage-totals.js';
export type { UsageTotals } from './store/records/usage-totals.js';
export { APPROVAL_CHOICES, ApprovalChoiceSchema, RememberChoiceSchema } from './store/records/approval-choice.js';
export type { ApprovalChoice, ApprovalChoiceWords, RememberChoice } from './store/records/approval-choice.js';
export { LEGION_ERROR_CODES } from './kernel/error-codes.js';
export type { ErrorCodeEntry, ErrorCodeSurface, LegionErrorCode } from './kernel/error-codes.js';
