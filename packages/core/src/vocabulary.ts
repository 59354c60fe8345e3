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
} from './message.js';
export type { ContentBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock, TurnEnding, TurnOutcome, Usage } from './message.js';
export { ContextUsageSchema, ConversationRefSchema, LEGION_EVENT_NAMES, LegionEventSchemas } from './events/event-types.js';
export type { ContextUsage, ConversationRef, LegionEvent, LegionEventName, LegionEvents } from './events/event-types.js';
export { ApprovalViewSchema } from './storage/approval-view.js';
export type { ApprovalView } from './storage/approval-view.js';
export { QuestionViewSchema } from './storage/question-view.js';
export type { QuestionView } from './storage/question-view.js';
export { UsageTotalsSchema } from './storage/usage-totals.js';
export type { UsageTotals } from './storage/usage-totals.js';
export { ApprovalChoiceSchema, RememberChoiceSchema } from './storage/approval-choice.js';
export type { ApprovalChoice, RememberChoice } from './storage/approval-choice.js';
export { LEGION_ERROR_CODES } from './error-codes.js';
export type { ErrorCodeEntry, ErrorCodeSurface, LegionErrorCode } from './error-codes.js';
