// The documented wire format of Legion's HTTP API (`@legion-collective/server/wire`): zod schemas
// and the types inferred from them. Messages, events, approval and question views are derived from
// core's one definition (`@legion-collective/core/vocabulary`, zod only: nothing of the engine);
// browsers and other clients depend on this entry alone (`import type` is enough for a client that
// trusts the server).
export { AnsweredResponseSchema, ErrorBodySchema, ErrorCodeSchema } from './errors.js';
export type { AnsweredResponse, ErrorBody, ErrorCode } from './errors.js';
export { ConfigViewSchema, WorkspaceInfoSchema } from './workspace.js';
export {
  ClaimConflictViewSchema,
  ClaimListResponseSchema,
  ClaimReleaseRequestSchema,
  ClaimReleaseResponseSchema,
  SessionConflictsResponseSchema,
} from './claims.js';
export type {
  ClaimConflictView,
  ClaimListResponse,
  ClaimReleaseRequest,
  ClaimReleaseResponse,
  SessionConflictsResponse,
} from './claims.js';
export type { ConfigView, WorkspaceInfo } from './workspace.js';
export { ParticipantListResponseSchema, ParticipantSchema, ParticipantStateNameSchema, ParticipantTypeSchema } from './participants.js';
export type { Participant, ParticipantListResponse, ParticipantStateName, ParticipantType } from './participants.js';
export { AgentToolSchema, AgentToolsResponseSchema } from './tools.js';
export type { AgentTool, AgentToolsResponse } from './tools.js';
export {
  ConversationSummarySchema,
  CreateSessionRequestSchema,
  CreateSessionResponseSchema,
  SessionDetailResponseSchema,
  SessionListResponseSchema,
  SessionSummarySchema,
} from './sessions.js';
export type {
  ConversationSummary,
  CreateSessionRequest,
  CreateSessionResponse,
  SessionDetailResponse,
  SessionListResponse,
  SessionSummary,
} from './sessions.js';
export {
  CancelRequestSchema,
  CancelResponseSchema,
  ContentBlockSchema,
  KeptFileChangeSchema,
  MessagesPageResponseSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamTextResponseSchema,
  TextBlockSchema,
  ToolResultBlockSchema,
  ToolUseBlockSchema,
  TurnEndingSchema,
  UsageSchema,
  WireMessageSchema,
} from './messages.js';
export type {
  CancelRequest,
  CancelResponse,
  ContentBlock,
  KeptFileChange,
  MessagesPageResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamTextResponse,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
  TurnEnding,
  Usage,
  WireMessage,
} from './messages.js';
export {
  ApprovalAnswerRequestSchema,
  ApprovalDecisionSchema,
  ApprovalListResponseSchema,
  ApprovalViewSchema,
  FileChangeResponseSchema,
  FileChangeSchema,
} from './approvals.js';
export type {
  ApprovalAnswerRequest,
  ApprovalChoiceWordsList,
  ApprovalDecision,
  ApprovalListResponse,
  ApprovalView,
  FileChange,
  FileChangeResponse,
} from './approvals.js';
export { QuestionAnswerRequestSchema, QuestionListResponseSchema, WireQuestionSchema } from './questions.js';
export type { QuestionAnswerRequest, QuestionListResponse, WireQuestion } from './questions.js';
export { SessionUsageResponseSchema, TotalsSchema } from './usage.js';
export type { SessionUsageResponse, Totals } from './usage.js';
export { SearchHitSchema, SearchResponseSchema } from './search.js';
export type { SearchHit, SearchResponse } from './search.js';
export {
  ApprovalDecidedEventSchema,
  ApprovalRequestedEventSchema,
  ApprovalRuleAddedEventSchema,
  ApprovalRuleRemovedEventSchema,
  ContextCompactedEventSchema,
  WindowGuessedEventSchema,
  DelegationDequeuedEventSchema,
  WorktreeReadyEventSchema,
  DelegationQueuedEventSchema,
  ErrorRaisedEventSchema,
  LegionWireEventSchema,
  MessageSentEventSchema,
  ProviderRetryEventSchema,
  QuestionAnsweredEventSchema,
  QuestionAskedEventSchema,
  QuestionWithdrawnEventSchema,
  ResetEventDataSchema,
  SessionCreatedEventSchema,
  SessionEventDataSchema,
  SessionUpdatedEventSchema,
  SSE_EVENT_NAMES,
  STREAMED_EVENT_NAMES,
  StateEventDataSchema,
  StorageWarningEventSchema,
  ClaimConflictEventSchema,
  TextDeltaEventSchema,
  ToolCallEventSchema,
  ToolRegisterEventSchema,
  ToolResultEventSchema,
  ToolUnregisterEventSchema,
  ConfigReloadedEventSchema,
  TurnEndEventSchema,
  TurnStartEventSchema,
  UsageReportEventSchema,
} from './events.js';
export type {
  LegionWireEvent,
  LegionWireEventType,
  ResetEventData,
  SessionEventData,
  SseEventName,
  StateEventData,
  StreamedEventName,
  WireEventOf,
} from './events.js';
