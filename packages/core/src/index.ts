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
  approvalKeyLine,
  choiceOfAnswer,
  choiceOfKey,
  explainPause,
  explainQuestionPause,
} from './hitl/index.js';
export type {
  ApprovalChoice,
  ApprovalChoiceAnswer,
  ApprovalChoiceWords,
  PauseExplanation,
  QuestionPauseExplanation,
  AnswerQuestionOptions,
  ApprovalRule,
  ApprovalRules,
  NewApprovalRule,
  UserQuestion,
  UserSurface,
} from './hitl/index.js';
export { UsageTally, usageRecordOf } from './driver/usage-tally.js';
export { DelegationTree, delegatedConversation } from './driver/delegation-tree.js';
export type { OpenLegionOptions } from './Legion.js';
export { initWorkspace, DEFAULT_CONFIG } from './team/index.js';
export type {
  InitResult,
  ContextOverrides,
  ContextProfileName,
  ContextSettings,
  ModelWindow,
  AgentParticipant,
  AgentTemplate,
  Limits,
  MessageWorkLimits,
  MockParticipant,
  ModelConfig,
  Participant,
  ParticipantInput,
  ParticipantType,
  Permission,
  UserParticipant,
  WorkspaceLimits,
  ApprovalAuthority,
  Policies,
  PolicyDecision,
  PolicyMode,
  PolicyRule,
  ToolPolicy,
  ConfigLayer,
  ResolvedConfig,
  McpServerConfig,
} from './team/index.js';
export {
  findWorkspaceRoot,
  LEGION_DIR,
  ApprovalAnswerSchema,
  emptyTotals,
  summarizeUsage,
  FileSessionBackend,
  MemorySessionBackend,
} from './store/index.js';

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
  LEGION_ERROR_CODES,
  textOf,
  toolResultsOf,
  toolUsesOf,
  EventBus,
} from './kernel/index.js';
// Every code those errors, a turn's error outcome and the surfaces' refusals carry, with its meaning (docs/reference/error-codes.md).
export type {
  ErrorCodeEntry,
  ErrorCodeSurface,
  LegionErrorCode,
  ContentBlock,
  Message,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
  TurnEnding,
  TurnOutcome,
  Usage,
  ConversationRef,
  LegionEvent,
  LegionEventName,
  LegionEvents,
} from './kernel/index.js';

// Messages: the content every layer speaks.

// Events, for UIs. Their schemas (and those of messages, approval and question views) are exported
// by `@legion-collective/core/vocabulary`, not here: the engine needs only the types, so a process
// that validates nothing never builds them.
export type {
  Follower,
  FollowOptions,
  FollowCursor,
  FollowWorkspaceOptions,
  WorkspaceFollower,
  WorkspaceFollowPort,
  Session,
  SessionMessage,
} from './engine/index.js';
export { followWorkspace } from './engine/index.js';

// Approvals, questions, usage and the session's stores, as a library user reads them; choosing a backend.
export type {
  ApprovalAnswer,
  ApprovalView,
  ApprovalState,
  SessionApprovals,
  QuestionView,
  QuestionState,
  SessionQuestions,
  SessionAgentState,
  SessionArtifacts,
  UsageRecord,
  UsageSummary,
  UsageTotals,
  SessionBackend,
  StorageWarning,
  FileSessionBackendOptions,
  MemorySessionBackendOptions,
} from './store/index.js';
export type {
  QuestionAnswerOutcome,
  AnswerOutcome,
  CompactOutcome,
  PausedOnApprovals,
  ResumeOutcome,
  RuntimeOutcome,
  SendRequest,
  TurnResult,
} from './session/index.js';
// Writing a backend of your own: `@legion-collective/core/backend` (the port's parts, records, name rules, snapshots).

// Context budgets (their schemas, the model table and token counting: `/management`).
// A request that cannot fit the model's window even after compaction.
export {
  ContextOverflowError,
  generate,
  AnthropicProvider,
  OpenAIProvider,
  PROVIDER_PRESETS,
  redirectSafeFetch,
  ScriptedProvider,
} from './model/index.js';

// Participants, their policies, and the config (the files' schemas and editing them: `/management`).
// Who may decide which approval requests: a stand-in (an MCP client) only within the chains it started.
export type { RulePatternOutcome } from './authorization/index.js';
export type { WorkspaceTool, Tool, ToolContext, ToolEffect, ToolResult, ProvidedTool, ToolProvider } from './tools/index.js';

// The session contract: sending and what becomes of a turn (runtimes of your own: `/internal`).

// User surfaces: the one door a UI reaches the user through (`legion.attachUser`); their abort reasons are among the errors.

// Model providers.
export type {
  FinishReason,
  LLMProvider,
  ModelRequest,
  ModelResponse,
  StreamOptions,
  StreamPart,
  ToolDefinition,
  ProviderConstructor,
  ProviderSettings,
  ProviderPreset,
  ScriptEntry,
  ScriptStep,
  ScriptedToolCall,
} from './model/index.js';
// Node's fetch that sends no key to the host a redirect points to; the providers give it to the SDKs.

// Tools of your own.
export { defineTool } from './tools/index.js';
