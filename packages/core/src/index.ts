// The public API of @legion-collective/core: what packages/core/README.md ("Public API") lists as
// public and stable. Everything else in src/ is internal and may change in any release.
// Test helpers live in `@legion-collective/core/testing`.

// The engine.
export { Legion } from './Legion.js';
export { SessionDriver } from './driver/SessionDriver.js';
export type { DrivenWork, DriverSendOptions, SessionDriverOptions } from './driver/SessionDriver.js';
export { chooseSession, SessionChoiceSchema } from './driver/session-choice.js';
export type { SessionChoice } from './driver/session-choice.js';
export {
  APPROVAL_CHOICES,
  ApprovalChoiceAnswerSchema,
  ApprovalChoiceSchema,
  answerOfChoice,
  approvalChoice,
  approvalKeyLine,
  choiceOfAnswer,
  choiceOfKey,
} from './driver/approval-choices.js';
export type { ApprovalChoice, ApprovalChoiceAnswer, ApprovalChoiceWords } from './driver/approval-choices.js';
export { UsageTally, usageRecordOf } from './driver/usage-tally.js';
export { explainPause, explainQuestionPause } from './driver/pause-explanation.js';
export type { PauseExplanation, QuestionPauseExplanation } from './driver/pause-explanation.js';
export { DelegationTree, delegatedConversation } from './driver/delegation-tree.js';
export type { OpenLegionOptions } from './Legion.js';
export { initWorkspace } from './config/init-workspace.js';
export type { InitResult } from './config/init-workspace.js';
export { findWorkspaceRoot, LEGION_DIR } from './storage/workspace-paths.js';
export { FileTooLargeError, NotRegularFileError, readRegularFileSync } from './storage/regular-file.js';

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
} from './errors.js';

// Messages: the content every layer speaks.
export { ContentBlockSchema, MessageSchema, TurnEndingSchema, textOf, toolResultsOf, toolUsesOf } from './message.js';
export type { ContentBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock, TurnEnding, TurnOutcome, Usage } from './message.js';

// Events, for UIs. Their schemas (and those of messages, approval and question views) are exported
// by `@legion-collective/core/vocabulary`, not here: the engine needs only the types, so a process
// that validates nothing never builds them.
export { EventBus } from './events/EventBus.js';
export type { ConversationRef, LegionEvent, LegionEventName, LegionEvents } from './events/event-types.js';
export type { Follower, FollowOptions } from './conversation/follow-session.js';
export type { FollowCursor } from './conversation/follow-session.js';
export { followWorkspace } from './conversation/follow-workspace.js';
export type { FollowWorkspaceOptions, WorkspaceFollower, WorkspaceFollowPort } from './conversation/follow-workspace.js';

// Saved formats and the storage contract.
export { ApprovalAnswerSchema, ApprovalRecordSchema } from './storage/approval-records.js';
export type { ApprovalAnswer, ApprovalRecord, ApprovalView } from './storage/approval-records.js';
export type { ApprovalState, SessionApprovals } from './storage/SessionApprovals.js';
export {
  QUESTION_RECORD_VERSION,
  QuestionAnswerRecordSchema,
  QuestionLogRecordSchema,
  QuestionOutcomeRecordSchema,
  QuestionRecordSchema,
  QuestionWithdrawnRecordSchema,
} from './storage/question-records.js';
export type {
  QuestionAnswerRecord,
  QuestionLogRecord,
  QuestionOutcomeRecord,
  QuestionRecord,
  QuestionView,
  QuestionWithdrawnRecord,
} from './storage/question-records.js';
export type { QuestionState, SessionQuestions } from './storage/SessionQuestions.js';
export { answerSizeError } from './conversation/answer-question.js';
export type { AnswerQuestionOptions } from './conversation/answer-question.js';
export type { QuestionAnswerOutcome } from './session/turn.js';
export type { SessionAgentState } from './storage/SessionAgentState.js';
export type { SessionArtifacts } from './storage/SessionArtifacts.js';
export { LogEntrySchema } from './storage/log-entry.js';
export type { LogEntry } from './storage/log-entry.js';
export { UsageRecordSchema, emptyTotals, summarizeUsage } from './storage/usage-summary.js';
export type { UsageRecord, UsageSummary, UsageTotals } from './storage/usage-summary.js';
export { CompactionEntrySchema } from './storage/log-entry.js';
export type {
  CarriedMessage,
  CompactionEntry,
  CompactionEntryInput,
  CompactionReason,
  HeaderEntry,
  MessageEntry,
  NoteEntry,
} from './storage/log-entry.js';
export { CONVERSATION_FORMAT_VERSION } from './storage/log-entry.js';
export type {
  AcquireResult,
  AgentStateKey,
  AgentStateStore,
  AppendableEntry,
  ApprovalLog,
  ArtifactInfo,
  ArtifactStore,
  ConversationAddress,
  ConversationContext,
  ConversationLogs,
  DecideResult,
  Lease,
  LeaseHolder,
  LogCursor,
  QuestionLog,
  SessionBackend,
  SessionBackendOptions,
  SessionListing,
  SessionRecords,
  SettleResult,
  StorageWarning,
  UsageLedgerStore,
} from './storage/backend/session-backend.js';
export { LeaseLostError } from './storage/backend/lease-lost-error.js';
export { FileSessionBackend } from './storage/backend/file/FileSessionBackend.js';
export type { FileSessionBackendOptions } from './storage/backend/file/FileSessionBackend.js';
export { MemorySessionBackend } from './storage/backend/memory/MemorySessionBackend.js';
export type { MemorySessionBackendOptions } from './storage/backend/memory/MemorySessionBackend.js';
export { MemorySessionStore } from './storage/backend/memory/MemorySessionStore.js';
// For other backends (`@legion-collective/store-postgres`): the record schemas and name rules every backend applies alike.
export { SessionMetaSchema, SESSION_FORMAT_VERSION } from './storage/session-meta.js';
export { HeaderEntrySchema, MessageEntrySchema } from './storage/log-entry.js';
export { ApprovalDecisionRecordSchema } from './storage/approval-records.js';
export type { ApprovalDecisionRecord, ApprovalRequestRecord } from './storage/approval-records.js';
export { newSessionMeta } from './storage/backend/new-session-meta.js';
export { canonicalJson, exportSession, importSession, summarizeSnapshot } from './storage/backend/session-snapshot.js';
export type { SessionSnapshot, SnapshotSummary } from './storage/backend/session-snapshot.js';
export {
  assertAgentStateKey,
  assertAgentStateKind,
  assertArtifactName,
  assertConversationAddress,
  assertSessionName,
} from './storage/backend/record-names.js';
export { storageSelection, workspaceStorage } from './config/storage-selection.js';
export type { StorageSelection } from './config/storage-selection.js';

// Context budgets: profiles, the model table, token counting.
export { ContextOverridesSchema, ContextProfileNameSchema, ContextSettingsSchema, ModelWindowSchema } from './collective/context-schema.js';
export type { ContextOverrides, ContextProfileName, ContextSettings, ModelWindow } from './collective/context-schema.js';
export { contextSettingsFor, SMALL_WINDOW_TOKENS, UNKNOWN_HOSTED_MODEL_WINDOW } from './context/context-settings.js';
export { MODEL_WINDOWS, modelIdCandidates, modelWindowFor, OLLAMA_DEFAULT_NUM_CTX, UNKNOWN_MODEL_WINDOW } from './context/model-table.js';
export type { ModelWindowSource, ResolvedModelWindow } from './context/model-table.js';
export { measureContext, recordSentRequest, reportedContextTokens, settleSentRequest } from './context/token-accounting.js';
export type { ContextParts, ContextUsage, MeasureOptions } from './context/token-accounting.js';
export { buildContextReport, percent } from './context/context-report.js';
export type { ContextReport, ContextReportInput } from './context/context-report.js';
export { loadTokenCounter, tokenUpperBound } from './context/token-count.js';
export type { TokenCounter } from './context/token-count.js';
// Compaction and the hard cap (issue 12): summaries of the older context, the state carried over them, the window's budget.
export { ContextOverflowError } from './context/context-budget.js';
export { SUMMARY_SYSTEM_MARK } from './context/compaction-summary.js';
export { CARRY_OVER_TAG } from './context/compaction-carry-over.js';

// Participants, their policies, and the config files.
export {
  AgentParticipantSchema,
  AgentTemplateSchema,
  LimitsSchema,
  MessageWorkLimitsSchema,
  MockParticipantSchema,
  ModelConfigSchema,
  ParticipantSchema,
  PermissionSchema,
  UserParticipantSchema,
  WorkspaceLimitsSchema,
} from './collective/participant.js';
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
} from './collective/participant.js';
export {
  agentTemplateNames,
  inspectParticipantFiles,
  loadAgentTemplate,
  parseParticipantFile,
  participantFilePath,
  readParticipantFile,
  saveParticipantFile,
} from './collective/participant-file.js';
export type { ParticipantFileReport } from './collective/participant-file.js';
// Who may decide which approval requests: a stand-in (an MCP client) only within the chains it started.
export { decisionReach, reachesRequest } from './collective/approval-authority.js';
export type { DecisionReach } from './collective/approval-authority.js';
export { ApprovalAuthoritySchema, PoliciesSchema, PolicyModeSchema, PolicyRuleSchema, ToolPolicySchema } from './collective/policy.js';
export type { ApprovalAuthority, Policies, PolicyDecision, PolicyMode, PolicyRule, ToolPolicy } from './collective/policy.js';
export { APPROVAL_RULE_VERSION, ApprovalRuleSchema } from './collective/approval-rule.js';
export type { ApprovalRule } from './collective/approval-rule.js';
export { inspectApprovalRuleFiles } from './collective/ApprovalRuleStore.js';
export type { ApprovalRules, NewApprovalRule } from './authorization/ApprovalRules.js';
export type { RulePatternOutcome } from './authorization/approval-rule-pattern.js';
export { ConfigLayerSchema, DEFAULT_CONFIG } from './config/config-schema.js';
export type { ConfigLayer, ResolvedConfig } from './config/config-schema.js';
export { inspectConfigLayers, resolveConfigLayers, saveConfigLayer, workspaceConfigPath } from './config/config-layers.js';
export type { ConfigLayerReport } from './config/config-layers.js';
export { globalConfigPath } from './config/load-config.js';
export { secretsInConfig } from './config/config-secrets.js';
export { McpServerConfigSchema } from './config/mcp-server-config.js';
export type { McpServerConfig } from './config/mcp-server-config.js';
export { ModelPriceSchema, PriceTierSchema, costOf } from './config/pricing.js';
export type { ModelPrice, PriceTier } from './config/pricing.js';
export { PriceBook, configuredPrice, isLocal, prefixPricingKeys } from './config/price-book.js';
export type { PricedCall, PriceQuote, PriceSource } from './config/price-book.js';
export { sessionTokens } from './runtime/session-budget.js';
export { WORKSPACE_TOOL_FORMAT_VERSION, WorkspaceToolFileSchema } from './tools/providers/workspace/workspace-tool-schema.js';
export type { WorkspaceToolFile } from './tools/providers/workspace/workspace-tool-schema.js';
export type { WorkspaceTool } from './tools/providers/workspace/workspace-tool.js';
export { inspectWorkspaceTools } from './tools/providers/workspace/inspect-workspace-tools.js';
export type { WorkspaceToolsReport } from './tools/providers/workspace/inspect-workspace-tools.js';
export { probeMcpServer } from './tools/providers/mcp/probe-mcp-server.js';
export type { McpProbeResult } from './tools/providers/mcp/probe-mcp-server.js';
export { containment, CONTAINMENT_VARIABLE } from './tools/child-processes/containment.js';
export type { Containment, ContainmentKind } from './tools/child-processes/containment.js';

// The session contract: sending, turns, runtimes, and the port tools talk back through.
export type {
  AnswerOutcome,
  CompactOutcome,
  ParticipantRuntime,
  PausedOnApprovals,
  ResumeOutcome,
  RuntimeOutcome,
  RuntimeResolver,
  SendRequest,
  ToolSession,
  TurnContext,
  TurnConversation,
  TurnResult,
} from './session/turn.js';
export { DelegationFrameSchema, type DelegationFrame } from './storage/delegation-frame.js';
export { waitingParticipants } from './session/delegation-stack.js';
export type { SessionMeta } from './storage/session-meta.js';
export type { Session, SessionMessage } from './conversation/Session.js';
export { conversationId, parseConversationId } from './conversation/conversation-id.js';
export type { ConversationKey } from './conversation/conversation-id.js';

// User surfaces: the one door a UI reaches the user through (`legion.attachUser`); their abort reasons are among the errors.
export type { UserQuestion, UserSurface } from './runtime/user-surface.js';
export type { AttachedElsewhere } from './storage/surface-presence.js';

// Model providers.
export { generate } from './providers/llm-provider.js';
export type {
  FinishReason,
  LLMProvider,
  ModelRequest,
  ModelResponse,
  StreamOptions,
  StreamPart,
  ToolDefinition,
} from './providers/llm-provider.js';
export type { ProviderConstructor, ProviderSettings } from './providers/ProviderFactory.js';
export { AnthropicProvider } from './providers/anthropic/AnthropicProvider.js';
export { OpenAIProvider } from './providers/openai/OpenAIProvider.js';
export { PROVIDER_PRESETS } from './providers/provider-presets.js';
export { checkModelAccess } from './providers/model-access.js';
// Node's fetch that sends no key to the host a redirect points to; the providers give it to the SDKs.
export { redirectSafeFetch } from './providers/redirect-safe-fetch.js';
export type { ModelAccess, ModelKeySource } from './providers/model-access.js';
export type { ProviderPreset } from './providers/provider-presets.js';
export { ScriptedProvider } from './providers/scripted/ScriptedProvider.js';
export type { ScriptEntry, ScriptStep, ScriptedToolCall } from './providers/scripted/ScriptedProvider.js';

// Tools of your own.
export { defineTool } from './tools/tool.js';
export type { Tool, ToolContext, ToolEffect, ToolResult } from './tools/tool.js';
export type { ProvidedTool, ToolProvider } from './tools/providers/tool-provider.js';
export { conversationsStartedBy, sessionStartedBy, turnsOpenedBy, WHOLE_LOG } from './tools/builtin/delegation-tree.js';
export type { StartedConversation } from './tools/builtin/delegation-tree.js';
export type { AgentToolView, AgentToolsView, MissingTools, OnDemandFamily, ToolSchemaTokens } from './runtime/tool-views.js';
