/**
 * The team area: who is in the collective and what they may do (`collective/`: participants, policies,
 * approval authority, system prompts) and how the workspace is configured (`config/`: config layers,
 * prices, storage selection, MCP server settings).
 *
 * This file is the area's one entry: code outside `team/` imports from here, never from a file of
 * it (`npm run lint`, rule `team-through-its-index`; tests excepted). Files inside the area import
 * each other directly, never through this file (that would make cycles). It exports what other
 * areas and core's entries use, and nothing more.
 */

export { Collective } from './collective/Collective.js';
export { canApprove, decisionReach, reachesRequest, standInApprover } from './collective/approval-authority.js';
export type { DecisionReach } from './collective/approval-authority.js';
export { ContextOverridesSchema, ContextProfileNameSchema, ContextSettingsSchema, ModelWindowSchema } from './collective/context-schema.js';
export type { ContextOverrides, ContextProfileName, ContextSettings, ModelWindow } from './collective/context-schema.js';
export { ModelConfigSchema } from './collective/model-config.js';
export type { ModelConfig } from './collective/model-config.js';
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
export { isValidIdPart } from './collective/participant-id.js';
export {
  AgentParticipantSchema,
  AgentTemplateSchema,
  LimitsSchema,
  MessageWorkLimitsSchema,
  MockParticipantSchema,
  A2aParticipantSchema,
  ParticipantIdSchema,
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
  A2aParticipant,
  MockResponse,
  Participant,
  ParticipantInput,
  ParticipantType,
  Permission,
  UserParticipant,
  WorkspaceLimits,
} from './collective/participant.js';
export { permissionMatcher } from './collective/permits.js';
export { ApprovalAuthoritySchema, PoliciesSchema, PolicyModeSchema, PolicyRuleSchema, ToolPolicySchema } from './collective/policy.js';
export type { ApprovalAuthority, Policies, PolicyDecision, PolicyMode, PolicyRule, ToolPolicy } from './collective/policy.js';
export { buildSystemPrompt, delegationTargets } from './collective/system-prompt.js';
export { inspectConfigLayers, resolveConfigLayers, saveConfigLayer, workspaceConfigPath } from './config/config-layers.js';
export type { ConfigLayerReport } from './config/config-layers.js';
export { ConfigLayerSchema, DEFAULT_CONFIG } from './config/config-schema.js';
export type { ConfigLayer, RemoteAgentSettings, ResolvedConfig } from './config/config-schema.js';
export { canonicalHost, HostPatternSchema, SandboxNetworkSchema } from './config/sandbox-network.js';
export type { SandboxNetwork } from './config/sandbox-network.js';
export { NAME_KEYED_SECTIONS, SECRET_FIELD, secretsInConfig } from './config/config-secrets.js';
export { initWorkspace } from './config/init-workspace.js';
export type { InitResult } from './config/init-workspace.js';
export { globalConfigPath, loadConfig, settingsForAgent } from './config/load-config.js';
export { changedKeys, ConfigWatch } from './config/config-watch.js';
export { isLocal } from './config/local-endpoint.js';
export { addMcpCaller } from './config/mcp-caller.js';
export { McpServerConfigSchema } from './config/mcp-server-config.js';
export type { McpServerConfig } from './config/mcp-server-config.js';
export {
  PriceBook,
  catalogueModels,
  catalogueWindow,
  catalogueWindowNeedsDataset,
  configuredPrice,
  prefixPricingKeys,
} from './config/price-book.js';
export { loadPriceDataset } from './config/price-dataset.js';
export type { PriceQuote, PriceSource, PricedCall } from './config/price-book.js';
export { ModelPriceSchema, PriceTierSchema, costOf } from './config/pricing.js';
export type { ModelPrice, PriceTier } from './config/pricing.js';
export { selectStorage, storageSelection, workspaceStorage } from './config/storage-selection.js';
export type { StorageSelection } from './config/storage-selection.js';
