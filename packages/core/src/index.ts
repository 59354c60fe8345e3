// `@legion-collective/core`, for library users: embedding Legion, writing tools, providers and
// surfaces. One entry per audience, each recorded in an API report (packages/core/api/) that CI
// compares: `/vocabulary` (zod schemas of messages, events and views), `/backend` (writing a session
// backend), `/management` (tools that manage a workspace), `/testing` (test helpers) and `/internal`
// (Legion's own packages; unstable). Nothing else in src/ is public.

// The engine.
export { Legion } from './Legion.js';
export { SessionDriver } from './driver/SessionDriver.js';
export type { DrivenWork, DriverSendOptions, SessionDriverOptions } from './driver/SessionDriver.js';
export { chooseSession, SessionChoiceSchema } from './driver/session-choice.js';
export type { SessionChoice } from './driver/session-choice.js';
export {
  APPROVAL_CHOICES,
  ApprovalChoiceAnswerSchema,
  answerOfChoice,
  approvalChoice,
  choiceOfAnswer,
  choiceOfTyped,
} from './hitl/index.js';
export type { ApprovalChoice, ApprovalChoiceAnswer, ApprovalChoiceWords } from './hitl/index.js';
export { UsageTally, usageRecordOf } from './driver/usage-tally.js';
export { explainPause, explainQuestionPause } from './hitl/index.js';
export type { PauseExplanation, QuestionPauseExplanation } from './hitl/index.js';
export { DelegationTree, delegatedConversation } from './driver/delegation-tree.js';
export type { OpenLegionOptions } from './Legion.js';
export { initWorkspace } from './team/index.js';
export type { InitResult } from './team/index.js';
export { findWorkspaceRoot, LEGION_DIR } from './store/index.js';

// Errors a caller can catch and tell apart by class or `code`.
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
  SessionBudgetExceededError,
  ParticipantNotFoundError,
  ProviderError,
  ScriptExhaustedError,
  SessionNotFoundError,
  SurfaceDetachedError,
  SurfaceDeclinedError,
  errorMessage,
} from './kernel/index.js';
// Every code those errors, a turn's error outcome and the surfaces' refusals carry, with its meaning (docs/reference/error-codes.md).
export { LEGION_ERROR_CODES } from './kernel/index.js';
export type { ErrorCodeEntry, ErrorCodeSurface, LegionErrorCode } from './kernel/index.js';

// Messages: the content every layer speaks.
export { textOf, toolResultsOf, toolUsesOf } from './kernel/index.js';
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
} from './kernel/index.js';

// Events, for UIs. Their schemas (and those of messages, approval and question views) are exported
// by `@legion-collective/core/vocabulary`, not here: the engine needs only the types, so a process
// that validates nothing never builds them.
export { EventBus } from './kernel/index.js';
export type { ConversationRef, LegionEvent, LegionEventName, LegionEvents } from './kernel/index.js';
export type { Follower, FollowOptions } from './engine/index.js';
export type { FollowCursor } from './engine/index.js';
export { followWorkspace } from './engine/index.js';
export type { FollowWorkspaceOptions, WorkspaceFollower, WorkspaceFollowPort } from './engine/index.js';

// Approvals, questions, usage and the session's stores, as a library user reads them; choosing a backend.
export { ApprovalAnswerSchema } from './store/index.js';
export type { ApprovalAnswer, ApprovalView, FileClaim } from './store/index.js';
export { groupedNumber, sandboxLine } from './kernel/index.js';
export type { SandboxNote } from './kernel/index.js';
export type { ApprovalState, SessionApprovals } from './store/index.js';
export type { QuestionView } from './store/index.js';
export type { QuestionState, SessionQuestions } from './store/index.js';
export type { AnswerQuestionOptions } from './hitl/index.js';
export type { EditorFiles, QuestionAnswerOutcome } from './session/index.js';
export type { SessionAgentState } from './store/index.js';
export type { SessionArtifacts } from './store/index.js';
export { emptyTotals, summarizeUsage } from './store/index.js';
export type { UsageRecord, UsageSummary, UsageTotals } from './store/index.js';
export type { ClaimConflictRecord } from './store/index.js';
export type { ConversationTally, MessageHit, SessionBackend, SessionTally, StorageWarning } from './store/index.js';
export { FileSessionBackend } from './store/index.js';
export type { FileSessionBackendOptions } from './store/index.js';
export { MemorySessionBackend } from './store/index.js';
export type { MemorySessionBackendOptions } from './store/index.js';
// Writing a backend of your own: `@legion-collective/core/backend` (the port's parts, records, name rules, snapshots).

// Context budgets (their schemas, the model table and token counting: `/management`).
export type { ContextOverrides, ContextProfileName, ContextSettings, ModelWindow } from './team/index.js';
// A request that cannot fit the model's window even after compaction.
export { ContextOverflowError } from './model/index.js';

// Participants, their policies, and the config (the files' schemas and editing them: `/management`).
export type {
  AgentParticipant,
  AgentTemplate,
  Limits,
  MessageWorkLimits,
  MockParticipant,
  A2aParticipant,
  ModelConfig,
  Participant,
  ParticipantInput,
  ParticipantType,
  Permission,
  UserParticipant,
  WorkspaceLimits,
} from './team/index.js';
// Who may decide which approval requests: a stand-in (an MCP client) only within the chains it started.
export type { ApprovalAuthority, Policies, PolicyDecision, PolicyMode, PolicyRule, ToolPolicy } from './team/index.js';
export type { ApprovalRule } from './hitl/index.js';
export type { ApprovalRules, NewApprovalRule } from './hitl/index.js';
export type { RulePatternOutcome } from './authorization/index.js';
export { DEFAULT_CONFIG } from './team/index.js';
export type { ConfigLayer, ResolvedConfig, SandboxNetwork } from './team/index.js';
export type { McpServerConfig } from './team/index.js';
export type { WorkspaceTool } from './tools/index.js';

// The session contract: sending and what becomes of a turn (runtimes of your own: `/internal`).
export type {
  AnswerOutcome,
  CompactOutcome,
  PausedOnApprovals,
  ResumeOutcome,
  RuntimeOutcome,
  SendRequest,
  TurnResult,
} from './session/index.js';
export type { Session, SessionMessage } from './engine/index.js';

// User surfaces: the one door a UI reaches the user through (`legion.attachUser`); their abort reasons are among the errors.
export type { UserQuestion, UserSurface } from './hitl/index.js';

// Model providers.
export { generate } from './model/index.js';
export type { FinishReason, LLMProvider, ModelRequest, ModelResponse, StreamOptions, StreamPart, ToolDefinition } from './model/index.js';
export type { ProviderConstructor, ProviderSettings } from './model/index.js';
export { AnthropicProvider } from './model/index.js';
export { OpenAIProvider } from './model/index.js';
export { PROVIDER_PRESETS } from './model/index.js';
// Node's fetch that sends no key to the host a redirect points to; the providers give it to the SDKs.
export { redirectSafeFetch } from './model/index.js';
export type { ProviderPreset } from './model/index.js';
export { ScriptedProvider } from './model/index.js';
export type { ScriptEntry, ScriptStep, ScriptedToolCall } from './model/index.js';

// Tools of your own.
export { defineTool } from './tools/index.js';
export type { Tool, ToolContext, ToolEffect, ToolResult } from './tools/index.js';
export type { ProvidedTool, ToolProvider } from './tools/index.js';
