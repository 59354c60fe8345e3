/**
 * The kernel area: errors and their codes, zod messages, byte sizes as errors say them, the message
 * and its blocks (`errors.ts`, `error-codes.ts`, `zod-issues.ts`, `byte-size.ts`, `message.ts`), how a command would run in the OS sandbox as approvals record it (`sandbox-note.ts`), the
 * event bus and its typed events (`events/`) and tracing (`tracing/`). Everything else in core builds
 * on it.
 *
 * This file is the area's one entry: code outside `kernel/` imports from here, never from a file of
 * it (`npm run lint`, rule `kernel-through-its-index`; tests excepted). Files inside the area import
 * each other directly, never through this file (that would make cycles). It exports what other
 * areas and core's entries use, and nothing more.
 */
export { exactBytes } from './byte-size.js';
export { groupedNumber } from './grouped-number.js';
export { LEGION_ERROR_CODES } from './error-codes.js';
export type { ErrorCodeEntry, ErrorCodeSurface, LegionErrorCode } from './error-codes.js';
export {
  AnsweredElsewhereError,
  CircularDelegationError,
  ConfigError,
  ConversationBusyError,
  DelegationNotAllowedError,
  LegionError,
  MaxDepthError,
  MaxIterationsError,
  MessageWorkLimitError,
  ParticipantNotFoundError,
  ProviderError,
  ScriptExhaustedError,
  SessionBudgetExceededError,
  SessionNotFoundError,
  SurfaceDeclinedError,
  SurfaceDetachedError,
  errorMessage,
} from './errors.js';
export { EventBus } from './events/EventBus.js';
export { ClaimHolderSchema } from './events/event-types.js';
export type { ContextUsage, ConversationRef, LegionEvent, LegionEventName, LegionEvents } from './events/event-types.js';
export { SandboxNoteSchema, sandboxLine } from './sandbox-note.js';
export type { SandboxNote } from './sandbox-note.js';
export { MessageSchema, UsageSchema, textOf, toolResultsOf, toolUsesOf } from './message.js';
export type {
  ContentBlock,
  KeptFileChange,
  Message,
  RemoteTask,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
  TurnEnding,
  TurnOutcome,
  Usage,
} from './message.js';
export { LegionTracer } from './tracing/LegionTracer.js';
export type { ChatTrace, TurnTrace } from './tracing/LegionTracer.js';
export { describeZodError } from './zod-issues.js';
