// `@legion-collective/core/management`: for tools that manage a workspace rather than run it (the
// CLI's `legion agents`, `config`, `tools`, `doctor`, `approvals rules`, an editor's settings UI):
// config layers and their schemas, participant and rule files, model windows, prices and context
// reports, endpoint and MCP server probes, command containment, the worktrees of isolated turns.

export { storageSelection, workspaceStorage } from './team/index.js';
export type { StorageSelection } from './team/index.js';
export { ContextOverridesSchema, ContextProfileNameSchema, ContextSettingsSchema, ModelWindowSchema } from './team/index.js';
export { contextSettingsFor, SMALL_WINDOW_TOKENS, UNKNOWN_HOSTED_MODEL_WINDOW } from './model/index.js';
export {
  CATALOGUE_GAPS,
  modelIdCandidates,
  modelWindowFor,
  OLLAMA_DEFAULT_NUM_CTX,
  OUTPUT_RESERVES,
  UNKNOWN_MODEL_WINDOW,
} from './model/index.js';
export type { ModelWindowSource, ResolvedModelWindow } from './model/index.js';
export { measureContext, recordSentRequest, reportedContextTokens, settleSentRequest } from './model/index.js';
export type { ContextParts, ContextUsage, MeasureOptions } from './model/index.js';
export { buildContextReport, percent } from './model/index.js';
export type { ContextReport, ContextReportInput } from './model/index.js';
export { loadTokenCounter, tokenUpperBound } from './model/index.js';
export type { TokenCounter } from './model/index.js';
export {
  AgentParticipantSchema,
  AgentTemplateSchema,
  LimitsSchema,
  MessageWorkLimitsSchema,
  MockParticipantSchema,
  A2aParticipantSchema,
  ModelConfigSchema,
  ParticipantSchema,
  PermissionSchema,
  UserParticipantSchema,
  WorkspaceLimitsSchema,
} from './team/index.js';
export {
  agentTemplateNames,
  inspectParticipantFiles,
  loadAgentTemplate,
  parseParticipantFile,
  participantFilePath,
  readParticipantFile,
  saveParticipantFile,
} from './team/index.js';
export type { ParticipantFileReport } from './team/index.js';
export { ApprovalAuthoritySchema, PoliciesSchema, PolicyModeSchema, PolicyRuleSchema, ToolPolicySchema } from './team/index.js';
export { APPROVAL_RULE_VERSION, ApprovalRuleSchema } from './hitl/index.js';
export { inspectApprovalRuleFiles } from './hitl/index.js';
export { ConfigLayerSchema, HostPatternSchema, SandboxNetworkSchema } from './team/index.js';
export { inspectConfigLayers, resolveConfigLayers, saveConfigLayer, workspaceConfigPath } from './team/index.js';
export type { ConfigLayerReport } from './team/index.js';
export { globalConfigPath } from './team/index.js';
export { secretsInConfig } from './team/index.js';
export { McpServerConfigSchema } from './team/index.js';
export { ModelPriceSchema, PriceTierSchema, costOf } from './team/index.js';
export type { ModelPrice, PriceTier } from './team/index.js';
export { PriceBook, configuredPrice, isLocal, prefixPricingKeys } from './team/index.js';
export type { PricedCall, PriceQuote, PriceSource } from './team/index.js';
export { WORKSPACE_TOOL_FORMAT_VERSION, WorkspaceToolFileSchema } from './tools/index.js';
export type { WorkspaceToolFile } from './tools/index.js';
export { inspectWorkspaceTools } from './tools/index.js';
export type { WorkspaceToolsReport } from './tools/index.js';
export { probeMcpServer } from './tools/index.js';
export type { McpProbeResult } from './tools/index.js';
export { containment, CONTAINMENT_VARIABLE } from './tools/index.js';
export { BWRAP_VARIABLE, describeConfinement, hiddenLocations, sandboxSupport } from './tools/index.js';
export type { SandboxSupport } from './tools/index.js';
export type { Containment, ContainmentKind } from './tools/index.js';
export { checkModelAccess, probeEndpoint } from './model/index.js';
export type { EndpointProbe } from './model/index.js';
export type { ModelAccess, ModelKeySource } from './model/index.js';
export type { AgentToolView, AgentToolsView, MissingTools, OnDemandFamily, ToolSchemaTokens } from './engine/index.js';
export { modelCatalogue, parseModelName, providerOfModelName } from './model/index.js';
export type { CatalogueModel, CatalogueProvider, ModelCatalogue } from './model/index.js';
export { describeRemoteAgent, remoteAccess } from './engine/index.js';
export type { AgentCardSummary, RemoteAccess } from './engine/index.js';
// The worktrees of isolated turns (`legion worktrees`): list, show, apply, discard.
export { Worktrees, WorktreeRecordSchema } from './tools/index.js';
export type {
  ApplyOutcome,
  WorktreeChange,
  WorktreeConflict,
  WorktreeEntry,
  WorktreeFileChange,
  WorktreeRecord,
  WorktreeResult,
  WorktreeState,
} from './tools/index.js';
