// The public API of @legion-collective/core. Test helpers live in `@legion-collective/core/testing`.

export { Legion } from './Legion.js';
export type { OpenLegionOptions } from './Legion.js';

export {
  CircularDelegationError,
  ConfigError,
  ConversationBusyError,
  DelegationNotAllowedError,
  LegionError,
  MaxDepthError,
  MaxIterationsError,
  ParticipantNotFoundError,
  ProviderError,
  ScriptExhaustedError,
  SessionNotFoundError,
  AnsweredElsewhereError,
  SurfaceDetachedError,
  errorMessage,
} from './errors.js';

export { ApprovalStore } from './authorization/ApprovalStore.js';
export { AuthEngine, DEFAULT_MODES, canApprove } from './authorization/AuthEngine.js';
export { ApprovalAnswerSchema, ApprovalRecordSchema } from './authorization/approval-records.js';
export type { ApprovalAnswer, ApprovalRecord, ApprovalView } from './authorization/approval-records.js';
export { ApprovalAuthoritySchema, PoliciesSchema, PolicyModeSchema, PolicyRuleSchema, ToolPolicySchema } from './authorization/policy.js';
export type { ApprovalAuthority, Policies, PolicyDecision, PolicyMode, PolicyRule, ToolPolicy } from './authorization/policy.js';
export { Collective } from './collective/Collective.js';
export { createDefaultParticipants, createDefaultTemplates } from './collective/default-collective.js';
export { initWorkspace } from './collective/init-workspace.js';
export type { InitResult } from './collective/init-workspace.js';
export {
  AgentParticipantSchema,
  AgentTemplateSchema,
  LimitsSchema,
  MockParticipantSchema,
  ModelConfigSchema,
  ParticipantSchema,
  PermissionSchema,
  UserParticipantSchema,
} from './collective/participant.js';
export type {
  AgentParticipant,
  AgentTemplate,
  Limits,
  MockParticipant,
  ModelConfig,
  Participant,
  ParticipantInput,
  ParticipantType,
  Permission,
  UserParticipant,
} from './collective/participant.js';
export { buildSystemPrompt, delegationTargets } from './collective/system-prompt.js';

export { ConfigLayerSchema, DEFAULT_CONFIG } from './config/config-schema.js';
export type { ConfigLayer, ResolvedConfig } from './config/config-schema.js';
export { globalConfigPath, loadConfig, mergeConfig, settingsForAgent } from './config/load-config.js';

export { Conversation } from './conversation/Conversation.js';
export { conversationId, parseConversationId } from './conversation/conversation-id.js';
export type { ConversationLog } from './conversation/conversation-log.js';
export { LogEntrySchema } from './conversation/log-entry.js';
export type { LogEntry } from './conversation/log-entry.js';
export { ContentBlockSchema, MessageSchema, textOf, toolResultsOf, toolUsesOf } from './conversation/message.js';
export type { ContentBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage } from './conversation/message.js';
export { Session } from './conversation/Session.js';
export type { SessionMessage } from './conversation/Session.js';
export type { SessionMeta } from './conversation/session-meta.js';
export { SessionStore } from './conversation/SessionStore.js';

export { EventBus } from './events/EventBus.js';
export type { ConversationRef, LegionEvent, LegionEventName, LegionEvents } from './events/event-types.js';

export { generate } from './providers/llm-provider.js';
export type { FinishReason, LLMProvider, ModelRequest, ModelResponse, StreamOptions, StreamPart } from './providers/llm-provider.js';
export { AnthropicProvider } from './providers/anthropic/AnthropicProvider.js';
export { registerBuiltinProviders } from './providers/builtin-providers.js';
export { OpenAIProvider } from './providers/openai/OpenAIProvider.js';
export { PROVIDER_PRESETS } from './providers/provider-presets.js';
export type { ProviderPreset } from './providers/provider-presets.js';
export { DEFAULT_PRICES, ModelPriceSchema, costOf, priceFor } from './providers/pricing.js';
export type { ModelPrice } from './providers/pricing.js';
export { ProviderFactory } from './providers/ProviderFactory.js';
export { UsageRecordSchema, emptyTotals, summarizeUsage } from './providers/usage-summary.js';
export type { UsageRecord, UsageSummary, UsageTotals } from './providers/usage-summary.js';
export type { ProviderConstructor, ProviderSettings } from './providers/ProviderFactory.js';

export { AgentRuntime } from './runtime/AgentRuntime.js';
export { MockRuntime } from './runtime/MockRuntime.js';
export type { UserQuestion, UserSurface } from './runtime/user-surface.js';
export type { ApprovalFrame, ParticipantRuntime, RuntimeOutcome, SendRequest, TurnContext, TurnConversation, TurnResult } from './runtime/turn.js';

export { FileLock } from './storage/file-lock.js';
export { JsonlLog } from './storage/jsonl-log.js';
export { findWorkspaceRoot, LEGION_DIR, WorkspacePaths } from './storage/workspace-paths.js';

export { COMMUNICATE_TOOL_NAME, createCommunicateTool } from './tools/builtin/communicate.js';
export { createFileReadTool } from './tools/builtin/files/file-read.js';
export { resolveInWorkspace } from './storage/workspace-path.js';
export { createListParticipantsTool } from './tools/builtin/list-participants.js';
export {
  BUILTIN_PROVIDER_ID,
  BUILTIN_TOOL_FAMILIES,
  ProcessRegistry,
  createBuiltinToolProvider,
  createBuiltinTools,
  registerBuiltinTools,
} from './tools/builtin/index.js';
export type {
  BackgroundProcess,
  BuiltinFamily,
  BuiltinTools,
  BuiltinToolsOptions,
  CollectiveToolsOptions,
  ProcessRegistryOptions,
  ProcessStatus,
  SessionDirectory,
} from './tools/builtin/index.js';
export { configSecretValues, createRedactor, redactSecrets, secretRedactor } from './tools/redact.js';
export type { NamedSecret, SecretSources } from './tools/redact.js';
export { commandEnvironment, withheldVariables } from './tools/child-env.js';
export type { CommandEnvironmentOptions } from './tools/child-env.js';
export { PROGRAMMATIC_PROVIDER_ID } from './tools/providers/tool-provider.js';
export type { ProvidedTool, ToolProvider } from './tools/providers/tool-provider.js';
export type { ToolRegistryOptions } from './tools/ToolRegistry.js';
export { WORKSPACE_TOOL_PROVIDER_ID, WorkspaceToolProvider, createWorkspaceToolProvider } from './tools/providers/workspace/WorkspaceToolProvider.js';
export type { WorkspaceToolProviderOptions } from './tools/providers/workspace/WorkspaceToolProvider.js';
export type { WorkspaceTool } from './tools/providers/workspace/workspace-tool.js';
export type { WorkspaceToolFileProblem } from './tools/providers/workspace/load-workspace-tools.js';
export { WORKSPACE_TOOL_FORMAT_VERSION, WorkspaceToolFileSchema } from './tools/providers/workspace/workspace-tool-schema.js';
export type { WorkspaceToolFile } from './tools/providers/workspace/workspace-tool-schema.js';
export { MCP_TOOL_PROVIDER_ID, McpToolProvider, createMcpToolProvider } from './tools/providers/mcp/McpToolProvider.js';
export type { McpServerProblem, McpToolProviderOptions } from './tools/providers/mcp/McpToolProvider.js';
export { McpServerConfigSchema } from './tools/providers/mcp/mcp-server-config.js';
export type { McpServerConfig } from './tools/providers/mcp/mcp-server-config.js';
export { mcpToolName } from './tools/providers/mcp/mcp-tool-name.js';
export { resolveWritableInWorkspace } from './storage/workspace-path.js';
export { defineTool, toolDefinition } from './tools/tool.js';
export type { AnswerOutcome, Tool, ToolContext, ToolDefinition, ToolEffect, ToolResult, ToolSession } from './tools/tool.js';
export { createApprovalResponseTool, createListApprovalsTool } from './tools/builtin/approval-tools.js';
export { ToolExecutor } from './tools/ToolExecutor.js';
export { ToolRegistry, permits } from './tools/ToolRegistry.js';
