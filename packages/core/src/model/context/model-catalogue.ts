import {
  catalogueModels,
  loadPriceDataset,
  PriceBook,
  type ModelConfig,
  type ModelPrice,
  type PriceSource,
  type ResolvedConfig,
} from '../../team/index.js';
import { checkModelAccess, type ModelKeySource } from '../providers/model-access.js';
import { PROVIDER_PRESETS } from '../providers/provider-presets.js';
import { CATALOGUE_GAPS, modelWindowFor, type ModelWindowSource } from './model-table.js';

/** A provider Legion knows, and whether a call to it would find a key. */
export interface CatalogueProvider {
  name: string;
  /** Environment variable read for its key. */
  apiKeyEnv: string | undefined;
  /** Where the key comes from; `none-needed` for a local server; `missing` when one is needed and none is set. */
  key: ModelKeySource | { from: 'missing' };
  /** What to do when the key is missing. */
  fix?: string;
}

/** A model Legion knows: its window (from the config, its endpoint or the catalogue) and its price per million tokens. */
export interface CatalogueModel {
  provider: string;
  model: string;
  window: number;
  outputReserve: number | undefined;
  /** Where the window came from; `default` is a guess (nobody knows the model). */
  windowSource: ModelWindowSource;
  /** `null`: no price known. */
  price: ModelPrice | null;
  priceSource: PriceSource;
  /** Agents of the collective (or `defaultModel`) that use it. */
  usedBy: string[];
}

export interface ModelCatalogue {
  providers: CatalogueProvider[];
  models: CatalogueModel[];
}

/**
 * The providers and models Legion knows, for a person choosing one (`legion models`, `/model`):
 * the built-in providers with where each one's key would come from, and the models of the bundled catalogue
 * (and its gaps) plus those the config and the collective use, with windows and list prices.
 */
export async function modelCatalogue(options: {
  config: ResolvedConfig;
  /** Agents' own models, by agent id. */
  agents?: ReadonlyArray<{ id: string; model: ModelConfig | undefined }>;
  env?: NodeJS.ProcessEnv;
}): Promise<ModelCatalogue> {
  const { config } = options;
  const env = options.env ?? process.env;
  const providers = Object.entries(PROVIDER_PRESETS).map(([name, preset]): CatalogueProvider => {
    const access = checkModelAccess({ provider: name, model: 'any' }, config.providers, env);
    if (access.ok) return { name, apiKeyEnv: preset.apiKeyEnv, key: access.key };
    // A local server's preset without an endpoint (`openai-compatible`) fails for want of a URL, not of a key.
    if (!preset.requiresKey) return { name, apiKeyEnv: preset.apiKeyEnv, key: { from: 'none-needed' } };
    return { name, apiKeyEnv: preset.apiKeyEnv, key: { from: 'missing' }, fix: access.fix };
  });
  const inUse = new Map<string, { model: ModelConfig; usedBy: string[] }>();
  const use = (model: ModelConfig, by: string): void => {
    const key = `${model.provider}/${model.model}`;
    const entry = inUse.get(key) ?? { model, usedBy: [] };
    entry.usedBy.push(by);
    inUse.set(key, entry);
  };
  use(config.defaultModel, 'defaultModel');
  for (const agent of options.agents ?? []) use(agent.model ?? config.defaultModel, agent.id);
  const listed: ModelConfig[] = [...inUse.values()].map((entry) => entry.model);
  const book = new PriceBook(() => config.pricing);
  // The catalogue gives the windows of hosted models (modelWindowFor reads it once loaded), and the models it lists.
  await loadPriceDataset().catch(() => undefined);
  const offered = [...Object.keys(CATALOGUE_GAPS), ...catalogueModels('anthropic'), ...catalogueModels('openai')];
  for (const id of offered) {
    const provider = providerOfModelName(id) ?? 'openai';
    if (!inUse.has(`${provider}/${id}`)) {
      inUse.set(`${provider}/${id}`, { model: { provider, model: id }, usedBy: [] });
      listed.push({ provider, model: id });
    }
  }
  const models = await Promise.all(
    listed.map(async (model): Promise<CatalogueModel> => {
      const window = modelWindowFor(model, config.models, config.providers);
      const quote = await book.quote({ provider: model.provider, model: model.model, baseURL: model.baseURL });
      return {
        provider: model.provider,
        model: model.model,
        window: window.window,
        outputReserve: window.outputReserve,
        windowSource: window.source,
        price: quote.price,
        priceSource: quote.source,
        usedBy: inUse.get(`${model.provider}/${model.model}`)?.usedBy ?? [],
      };
    }),
  );
  return { providers, models };
}

/** The provider a hosted model's name belongs to (Anthropic's and OpenAI's families), if it says. */
export function providerOfModelName(id: string): string | undefined {
  if (id.startsWith('claude-')) return 'anthropic';
  if (/^(gpt-(?!oss)|chatgpt-|codex-|o\d)/.test(id)) return 'openai';
  return undefined;
}

/**
 * A model as a person types it: `provider/model` when the part before the first `/` is a
 * provider Legion knows (`openrouter/meta-llama/llama-3.1-70b`, `ollama/qwen3:8b`), else a model
 * of the provider its name belongs to (`gpt-4.1` → openai), an Ollama tag (`qwen3:8b`) of ollama, else of
 * `fallbackProvider`.
 */
export function parseModelName(
  text: string,
  fallbackProvider: string,
  knownProviders: Iterable<string> = Object.keys(PROVIDER_PRESETS),
): ModelConfig {
  const slash = text.indexOf('/');
  if (slash > 0 && [...knownProviders].includes(text.slice(0, slash)))
    return { provider: text.slice(0, slash), model: text.slice(slash + 1) };
  const named = providerOfModelName(text) ?? (/^[\w.-]+:[\w.-]+$/.test(text) ? 'ollama' : undefined);
  if (named !== undefined) return { provider: named, model: text };
  return { provider: fallbackProvider, model: text };
}
