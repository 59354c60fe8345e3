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
export { initWorkspace } from './team/config/init-workspace.js';
export type { InitResult } from './team/config/init-workspace.js';
export { findWorkspaceRoot, LEGION_DIR } from './store/fs/workspace-paths.js';

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
} from './kernel/errors.js';
// Every code those errors, a turn's error outcome and the surfaces' refusals carry, with its meaning (docs/reference/error-codes.md).
export { LEGION_ERROR_CODES } from './kernel/error-codes.js';
export type { ErrorCodeEntry, ErrorCodeSurface, LegionErrorCode } from './kernel/error-codes.js';

// Messages: the content every layer speaks.
export { textOf, toolResultsOf, toolUsesOf } from './kernel/message.js';
export type { ContentBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock, TurnEnding, TurnOutcome, Usage } from './kernel/message.js';

// Events, for UIs. Their schemas (and those of messages, approval and question views) are exported
// by `@legion-collective/core/vocabulary`, not here: the engine needs only the types, so a process
// that validates nothing never builds them.
export { EventBus } from './kernel/events/EventBus.js';
export type { ConversationRef, LegionEvent, LegionEventName, LegionEvents } from './kernel/events/event-types.js';
export type { Follower, FollowOptions } from './engine/conversation/follow-session.js';
export type { FollowCursor } from './engine/conversation/follow-session.js';
export { followWorkspace } from './engine/conversation/follow-workspace.js';
export type { FollowWorkspaceOptions, WorkspaceFollower, WorkspaceFollowPort } from './engine/conversation/follow-workspace.js';

// Approvals, questions, usage and the session's stores, as a library user reads them; choosing a backend.
export { ApprovalAnswerSchema } from './store/records/approval-records.js';
export type { ApprovalAnswer, ApprovalView } from './store/records/approval-records.js';
export type { ApprovalState, SessionApprovals } from './store/SessionApprovals.js';
export type { QuestionView } from './store/records/question-records.js';
export type { QuestionState, SessionQuestions } from './store/SessionQuestions.js';
export type { AnswerQuestionOptions } from './hitl/index.js';
export type { QuestionAnswerOutcome } from './session/turn.js';
export type { SessionAgentState } from './store/SessionAgentState.js';
export type { SessionArtifacts } from './store/SessionArtifacts.js';
export { emptyTotals, summarizeUsage } from './store/records/usage-summary.js';
export type { UsageRecord, UsageSummary, UsageTotals } from './store/records/usage-summary.js';
export type { SessionBackend, StorageWarning } from './store/session-backend.js';
export { FileSessionBackend } from './store/file/FileSessionBackend.js';
export type { FileSessionBackendOptions } from './store/file/FileSessionBackend.js';
export { MemorySessionBackend } from './store/memory/MemorySessionBackend.js';
export type { MemorySessionBackendOptions } from './store/memory/MemorySessionBackend.js';
// Writing a backend of your own: `@legion-collective/core/backend` (the port's parts, records, name rules, snapshots).

// Context budgets (their schemas, the model table and token counting: `/management`).
export type { ContextOverrides, ContextProfileName, ContextSettings, ModelWindow } from './team/collective/context-schema.js';
// A request that cannot fit the model's window even after compaction.
export { ContextOverflowError } from './model/context/context-budget.js';

// Participants, their policies, and the config (the files' schemas and editing them: `/management`).
export type {
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
} from './team/collective/participant.js';
// Who may decide which approval requests: a stand-in (an MCP client) only within the chains it started.
export type { ApprovalAuthority, Policies, PolicyDecision, PolicyMode, PolicyRule, ToolPolicy } from './team/collective/policy.js';
export type { ApprovalRule } from './hitl/index.js';
export type { ApprovalRules, NewApprovalRule } from './hitl/index.js';
export type { RulePatternOutcome } from './authorization/approval-rule-pattern.js';
export { DEFAULT_CONFIG } from './team/config/config-schema.js';
export type { ConfigLayer, ResolvedConfig } from './team/config/config-schema.js';
export type { McpServerConfig } from './team/config/mcp-server-config.js';
export type { WorkspaceTool } from './tools/providers/workspace/workspace-tool.js';

// The session contract: sending and what becomes of a turn (runtimes of your own: `/internal`).
export type {
  AnswerOutcome,
  CompactOutcome,
  PausedOnApprovals,
  ResumeOutcome,
  RuntimeOutcome,
  SendRequest,
  TurnResult,
} from './session/turn.js';
export type { Session, SessionMessage } from './engine/conversation/Session.js';

// User surfaces: the one door a UI reaches the user through (`legion.attachUser`); their abort reasons are among the errors.
export type { UserQuestion, UserSurface } from './hitl/index.js';

// Model providers.
export { generate } from './model/providers/llm-provider.js';
export type {
  FinishReason,
  LLMProvider,
  ModelRequest,
  ModelResponse,
  StreamOptions,
  StreamPart,
  ToolDefinition,
} from './model/providers/llm-provider.js';
export type { ProviderConstructor, ProviderSettings } from './model/providers/ProviderFactory.js';
export { AnthropicProvider } from './model/providers/anthropic/AnthropicProvider.js';
export { OpenAIProvider } from './model/providers/openai/OpenAIProvider.js';
export { PROVIDER_PRESETS } from './model/providers/provider-presets.js';
// Node's fetch that sends no key to the host a redirect points to; the providers give it to the SDKs.
export { redirectSafeFetch } from './model/providers/redirect-safe-fetch.js';
export type { ProviderPreset } from './model/providers/provider-presets.js';
export { ScriptedProvider } from './model/providers/scripted/ScriptedProvider.js';
export type { ScriptEntry, ScriptStep, ScriptedToolCall } from './model/providers/scripted/ScriptedProvider.js';

// Tools of your own.
export { defineTool } from './tools/tool.js';
export type { Tool, ToolContext, ToolEffect, ToolResult } from './tools/tool.js';
export type { ProvidedTool, ToolProvider } from './tools/providers/tool-provider.js';
