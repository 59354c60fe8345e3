// `@legion-collective/core/management`: for tools that manage a workspace rather than run it (the
// CLI's `legion agents`, `config`, `tools`, `doctor`, `approvals rules`, an editor's settings UI):
// config layers and their schemas, participant and rule files, model windows, prices and context
// reports, endpoint and MCP server probes, command containment.

export { storageSelection, workspaceStorage } from './config/storage-selection.js';
export type { StorageSelection } from './config/storage-selection.js';
export { ContextOverridesSchema, ContextProfileNameSchema, ContextSettingsSchema, ModelWindowSchema } from './collective/context-schema.js';
export { contextSettingsFor, SMALL_WINDOW_TOKENS, UNKNOWN_HOSTED_MODEL_WINDOW } from './context/context-settings.js';
export { MODEL_WINDOWS, modelIdCandidates, modelWindowFor, OLLAMA_DEFAULT_NUM_CTX, UNKNOWN_MODEL_WINDOW } from './context/model-table.js';
export type { ModelWindowSource, ResolvedModelWindow } from './context/model-table.js';
export { measureContext, recordSentRequest, reportedContextTokens, settleSentRequest } from './context/token-accounting.js';
export type { ContextParts, ContextUsage, MeasureOptions } from './context/token-accounting.js';
export { buildContextReport, percent } from './context/context-report.js';
export type { ContextReport, ContextReportInput } from './context/context-report.js';
export { loadTokenCounter, tokenUpperBound } from './context/token-count.js';
export type { TokenCounter } from './context/token-count.js';
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
export { ApprovalAuthoritySchema, PoliciesSchema, PolicyModeSchema, PolicyRuleSchema, ToolPolicySchema } from './collective/policy.js';
export { APPROVAL_RULE_VERSION, ApprovalRuleSchema } from './collective/approval-rule.js';
export { inspectApprovalRuleFiles } from './collective/ApprovalRuleStore.js';
export { ConfigLayerSchema } from './config/config-schema.js';
export { inspectConfigLayers, resolveConfigLayers, saveConfigLayer, workspaceConfigPath } from './config/config-layers.js';
export type { ConfigLayerReport } from './config/config-layers.js';
export { globalConfigPath } from './config/load-config.js';
export { secretsInConfig } from './config/config-secrets.js';
export { McpServerConfigSchema } from './config/mcp-server-config.js';
export { ModelPriceSchema, PriceTierSchema, costOf } from './config/pricing.js';
export type { ModelPrice, PriceTier } from './config/pricing.js';
export { PriceBook, configuredPrice, isLocal, prefixPricingKeys } from './config/price-book.js';
export type { PricedCall, PriceQuote, PriceSource } from './config/price-book.js';
export { WORKSPACE_TOOL_FORMAT_VERSION, WorkspaceToolFileSchema } from './tools/providers/workspace/workspace-tool-schema.js';
export type { WorkspaceToolFile } from './tools/providers/workspace/workspace-tool-schema.js';
export { inspectWorkspaceTools } from './tools/providers/workspace/inspect-workspace-tools.js';
export type { WorkspaceToolsReport } from './tools/providers/workspace/inspect-workspace-tools.js';
export { probeMcpServer } from './tools/providers/mcp/probe-mcp-server.js';
export type { McpProbeResult } from './tools/providers/mcp/probe-mcp-server.js';
export { containment, CONTAINMENT_VARIABLE } from './tools/child-processes/containment.js';
export type { Containment, ContainmentKind } from './tools/child-processes/containment.js';
export { checkModelAccess } from './providers/model-access.js';
export type { ModelAccess, ModelKeySource } from './providers/model-access.js';
export type { AgentToolView, AgentToolsView, MissingTools, OnDemandFamily, ToolSchemaTokens } from './runtime/tool-views.js';
