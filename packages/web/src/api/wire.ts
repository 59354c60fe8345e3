// The app speaks only the documented wire format: types from `@legion-collective/server/wire`,
// erased at build time (no server code, no core code reaches the browser; lint-enforced).
export type {
  ApprovalChoiceWordsList,
  ApprovalView,
  ConversationSummary,
  FileChange,
  KeptFileChange,
  LegionWireEvent as WireEvent,
  Participant,
  ParticipantStateName,
  ResetEventData,
  SearchHit,
  SessionEventData,
  SessionSummary,
  SessionUsageResponse as UsageView,
  StateEventData as StateEvent,
  ToolResultBlock as ToolResult,
  ToolUseBlock as ToolUse,
  Totals,
  WireMessage,
  WireQuestion,
  WorkspaceInfo as Workspace,
} from '@legion-collective/server/wire';
import type { ClaimListResponse as Claims, WireEventOf } from '@legion-collective/server/wire';
/** A write a claim refused, as the session recorded it (any process's). */
export type { ClaimConflictView as RefusedWrite } from '@legion-collective/server/wire';
/** A file a running turn claimed. */
export type FileClaim = Claims['claims'][number];
/** A write that did not happen because another agent's turn holds the file. */
export type ClaimConflict = WireEventOf<'claim:conflict'>;
