/**
 * The model area: model providers and their SDKs (`providers/`) and the context budget, token counts
 * and compaction (`context/`).
 *
 * This file is the area's one entry: code outside `model/` imports from here, never from a file of
 * it (`npm run lint`, rule `model-through-its-index`; tests excepted). Files inside the area import
 * each other directly, never through this file (that would make cycles). It exports what other
 * areas and core's entries use, and nothing more.
 */

export { CARRY_OVER_TAG, renderCarryOver, withCarryOver } from './context/compaction-carry-over.js';
export type { CarryOver } from './context/compaction-carry-over.js';
export { SUMMARY_SYSTEM_MARK } from './context/compaction-summary.js';
export { compactConversation } from './context/compaction.js';
export { ContextOverflowError, fitToWindow } from './context/context-budget.js';
export { buildContextReport, percent } from './context/context-report.js';
export type { ContextReport, ContextReportInput } from './context/context-report.js';
export { SMALL_WINDOW_TOKENS, UNKNOWN_HOSTED_MODEL_WINDOW, contextSettingsFor, toolSchemasOf } from './context/context-settings.js';
export { loadTokenMeasure } from './context/context-tokens.js';
export { ARTIFACT_READ_TOOL_NAME, ToolResultEviction } from './context/evict-tool-result.js';
export {
  CATALOGUE_GAPS,
  OLLAMA_DEFAULT_NUM_CTX,
  OUTPUT_RESERVES,
  UNKNOWN_MODEL_WINDOW,
  modelIdCandidates,
  modelWindowFor,
} from './context/model-table.js';
export type { ModelWindowSource, ResolvedModelWindow } from './context/model-table.js';
export { modelCatalogue, parseModelName, providerOfModelName } from './context/model-catalogue.js';
export type { CatalogueModel, CatalogueProvider, ModelCatalogue } from './context/model-catalogue.js';
export { pruneToolResults } from './context/prune-tool-results.js';
export type { PruneOptions } from './context/prune-tool-results.js';
export { measureContext, recordSentRequest, reportedContextTokens, settleSentRequest } from './context/token-accounting.js';
export type { ContextParts, ContextUsage, MeasureOptions } from './context/token-accounting.js';
export { countTextTokens, loadTokenCounter, tokenUpperBound } from './context/token-count.js';
export type { TokenCounter } from './context/token-count.js';
export { ProviderFactory } from './providers/ProviderFactory.js';
export type { ProviderConstructor, ProviderSettings } from './providers/ProviderFactory.js';
export { AnthropicProvider } from './providers/anthropic/AnthropicProvider.js';
export { registerBuiltinProviders } from './providers/builtin-providers.js';
export { generate } from './providers/llm-provider.js';
export type {
  CallProgress,
  FinishReason,
  LLMProvider,
  ModelRequest,
  ModelResponse,
  ProviderRetry,
  StreamOptions,
  StreamPart,
  ToolDefinition,
} from './providers/llm-provider.js';
export { endpointWindow, forgetEndpointWindows, learnEndpointWindow, probeEndpoint } from './providers/endpoint-probe.js';
export type { EndpointProbe } from './providers/endpoint-probe.js';
export { checkModelAccess } from './providers/model-access.js';
export type { ModelAccess, ModelKeySource } from './providers/model-access.js';
export { OpenAIProvider } from './providers/openai/OpenAIProvider.js';
export { isContextTooLongError, windowNamedBy } from './providers/provider-errors.js';
export { PROVIDER_PRESETS } from './providers/provider-presets.js';
export type { ProviderPreset } from './providers/provider-presets.js';
export { redirectSafeFetch } from './providers/redirect-safe-fetch.js';
export { ScriptedProvider } from './providers/scripted/ScriptedProvider.js';
export type { ScriptEntry, ScriptStep, ScriptedToolCall } from './providers/scripted/ScriptedProvider.js';
export { reusesCallSignals } from './providers/signal-ownership.js';
