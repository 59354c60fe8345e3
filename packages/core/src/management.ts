// `@legion-collective/core/management`: for tools that manage a workspace rather than run it (the
// CLI's `legion agents`, `config`, `tools`, `doctor`, `approvals rules`, an editor's settings UI):
// config layers and their schemas, participant and rule files, model windows, prices and context
// reports, endpoint and MCP server probes, command containment.

export { storageSelection, workspaceStorage } from './team/config/storage-selection.js';
export type { StorageSelection } from './team/config/storage-selection.js';
export {
  ContextOverridesSchema,
  ContextProfileNameSchema,
  ContextSettingsSchema,
  ModelWindowSchema,
} from './team/collective/context-schema.js';
export { contextSettingsFor, SMALL_WINDOW_TOKENS, UNKNOWN_HOSTED_MODEL_WINDOW } from './model/context/context-settings.js';
export {
  MODEL_WINDOWS,
  modelIdCandidates,
  modelWindowFor,
  OLLAMA_DEFAULT_NUM_CTX,
  UNKNOWN_MODEL_WINDOW,
} from './model/context/model-table.js';
export type { ModelWindowSource, ResolvedModelWindow } from './model/context/model-table.js';
export { measureContext, recordSentRequest, reportedContextTokens, settleSentRequest } from './model/context/token-accounting.js';
export type { ContextParts, ContextUsage, MeasureOptions } from './model/context/token-accounting.js';
export { buildContextReport, percent } from './model/context/context-report.js';
export type { ContextReport, ContextReportInput } from './model/context/context-report.js';
export { loadTokenCounter, tokenUpperBound } from './model/context/token-count.js';
export type { TokenCounter } from './model/context/token-count.js';
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
} from './team/collective/participant.js';
export {
  agentTemplateNames,
  inspectParticipantFiles,
  loadAgentTemplate,
  parseParticipantFile,
  participantFilePath,
  readParticipantFile,
  saveParticipantFile,
} from './team/collective/participant-file.js';
export type { ParticipantFileReport } from './team/collective/participant-file.js';
export { ApprovalAuthoritySchema, PoliciesSchema, PolicyModeSchema, PolicyRuleSchema, ToolPolicySchema } from './team/collective/policy.js';
export { APPROVAL_RULE_VERSION, ApprovalRuleSchema } from './hitl/index.js';
export { inspectApprovalRuleFiles } from './hitl/index.js';
export { ConfigLayerSchema } from './team/config/config-schema.js';
export { inspectConfigLayers, resolveConfigLayers, saveConfigLayer, workspaceConfigPath } from './team/config/config-layers.js';
export type { ConfigLayerReport } from './team/config/config-layers.js';
export { globalConfigPath } from './team/config/load-config.js';
export { secretsInConfig } from './team/config/config-secrets.js';
export { McpServerConfigSchema } from './team/config/mcp-server-config.js';
export { ModelPriceSchema, PriceTierSchema, costOf } from './team/config/pricing.js';
export type { ModelPrice, PriceTier } from './team/config/pricing.js';
export { PriceBook, configuredPrice, isLocal, prefixPricingKeys } from './team/config/price-book.js';
export type { PricedCall, PriceQuote, PriceSource } from './team/config/price-book.js';
export { WORKSPACE_TOOL_FORMAT_VERSION, WorkspaceToolFileSchema } from './tools/providers/workspace/workspace-tool-schema.js';
export type { WorkspaceToolFile } from './tools/providers/workspace/workspace-tool-schema.js';
export { inspectWorkspaceTools } from './tools/providers/workspace/inspect-workspace-tools.js';
export type { WorkspaceToolsReport } from './tools/providers/workspace/inspect-workspace-tools.js';
export { probeMcpServer } from './tools/providers/mcp/probe-mcp-server.js';
export type { McpProbeResult } from './tools/providers/mcp/probe-mcp-server.js';
export { containment, CONTAINMENT_VARIABLE } from './tools/child-processes/containment.js';
export type { Containment, ContainmentKind } from './tools/child-processes/containment.js';
export { checkModelAccess } from './model/providers/model-access.js';
export type { ModelAccess, ModelKeySource } from './model/providers/model-access.js';
export type { AgentToolView, AgentToolsView, MissingTools, OnDemandFamily, ToolSchemaTokens } from './engine/runtime/tool-views.js';
export { modelCatalogue, parseModelName, providerOfTableModel } from './model/context/model-catalogue.js';
export type { CatalogueModel, CatalogueProvider, ModelCatalogue } from './model/context/model-catalogue.js';
