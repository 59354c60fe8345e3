// The kernel's zod-only door: the schemas of messages, events and error codes, and nothing that
// loads a node: module or OpenTelemetry (lint rule area-vocabulary-reaches-only-zod). The area's
// index re-exports its whole area; `@legion-collective/core/vocabulary` comes in here instead, so a
// browser or a client of the server can validate without loading the engine.
export {
  ContentBlockSchema,
  KeptFileChangeSchema,
  MessageSchema,
  TextBlockSchema,
  ToolResultBlockSchema,
  ToolUseBlockSchema,
  TurnEndingSchema,
  TurnOutcomeSchema,
  UsageSchema,
} from './message.js';
export type {
  ContentBlock,
  KeptFileChange,
  Message,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
  TurnEnding,
  TurnOutcome,
  Usage,
} from './message.js';
export {
  ClaimHolderSchema,
  ContextUsageSchema,
  ConversationRefSchema,
  LEGION_EVENT_NAMES,
  LegionEventSchemas,
} from './events/event-types.js';
export type { ContextUsage, ConversationRef, LegionEvent, LegionEventName, LegionEvents } from './events/event-types.js';
export { SandboxNoteSchema, sandboxLine } from './sandbox-note.js';
export type { SandboxNote } from './sandbox-note.js';
export { LEGION_ERROR_CODES } from './error-codes.js';
export type { ErrorCodeEntry, ErrorCodeSurface, LegionErrorCode } from './error-codes.js';
