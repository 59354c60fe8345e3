import type { ModelConfig, ModelWindow, ResolvedConfig } from '../../team/index.js';
import { catalogueWindow } from '../../team/index.js';
import { endpointWindow } from '../providers/endpoint-probe.js';

/**
 * The few models whose window Legion cannot take from the bundled catalogue (`@pydantic/genai-prices`,
 * which each release of Legion updates): models newer than it, and those it states wrongly. Not a
 * table to keep up: `model-table.test.ts` checks every entry against the catalogue and fails once the
 * catalogue has caught up, so the entry is deleted then. The reply's reserve of these is their own.
 *
 * Sources (read 2026-11-26):
 * - Anthropic's model pages (platform.claude.com/docs/en/models/<model>/overview): Sonnet 5.5, Haiku
 *   5.5, Mythos 5 and 5.1 (which share Fable 5's and 5.1's specifications, the Fable pages say): 1M
 *   context, 128K output. Not in the catalogue 0.1.8.
 * - OpenAI (platform.openai.com/docs/models/gpt-5-chat-latest): a 128,000-token context and 16,384
 *   output; the catalogue gives it GPT-5's 400,000.
 */
export const CATALOGUE_GAPS: Readonly<Record<string, ModelWindow>> = {
  'claude-sonnet-5-5': { window: 1_000_000, outputReserve: 32_000 },
  'claude-haiku-5-5': { window: 1_000_000, outputReserve: 32_000 },
  'claude-mythos-5-1': { window: 1_000_000, outputReserve: 32_000 },
  'claude-mythos-5': { window: 1_000_000, outputReserve: 32_000 },
  'gpt-5-chat-latest': { window: 128_000, outputReserve: 16_384 },
};

/**
 * What a model keeps for its reply that the catalogue cannot say (it has no output limits) and the
 * reserve's scaling (`outputReserveFor`) would not give: the reserve is not the model's largest
 * output but what the request must leave free.
 * - GPT-5 takes at most 272k of its 400k window as input (platform.openai.com/docs/models/gpt-5):
 *   exactly the other 128k, so window − reserve is never more than OpenAI accepts.
 * - OpenAI's reasoning models think in output tokens: 32k keeps room for thinking and an answer.
 */
export const OUTPUT_RESERVES: Readonly<Record<string, number>> = {
  'gpt-5': 128_000,
  'gpt-5-mini': 128_000,
  'gpt-5-nano': 128_000,
  'gpt-5-codex': 128_000,
  'gpt-5-pro': 128_000,
  'gpt-5.1': 128_000,
  'gpt-5.1-codex': 128_000,
  o3: 32_000,
  'o3-pro': 32_000,
  'o3-mini': 32_000,
  'o4-mini': 32_000,
  o1: 32_000,
  'o1-mini': 32_000,
  'codex-mini-latest': 32_000,
};

/** When nobody knows a local model: a window every current chat model has. */
export const UNKNOWN_MODEL_WINDOW: ModelWindow = { window: 8_192, outputReserve: 1_024 };

/**
 * Ollama serves every model with `num_ctx` tokens unless told otherwise, whatever the model was
 * trained for, and silently drops the start of a longer prompt. Its docs (`docs/context-length.mdx`)
 * give 4k below 24 GiB of VRAM (older releases: 2048). Who raised it (`OLLAMA_CONTEXT_LENGTH`, a
 * Modelfile's `num_ctx`) says so in the config's `models` (`"ollama/qwen3:8b": { "window": 32768 }`).
 */
export const OLLAMA_DEFAULT_NUM_CTX = 4_096;

/**
 * Where a model's window came from: `endpoint` is what its server reported; `table` one of the
 * `CATALOGUE_GAPS`; `default` means nobody knew the model (doctor warns; an Ollama model not
 * reported gets Ollama's default `num_ctx`, a guess too).
 */
export type ModelWindowSource = 'config' | 'endpoint' | 'table' | 'catalogue' | 'default';

export interface ResolvedModelWindow extends ModelWindow {
  source: ModelWindowSource;
  /** The config key or gap the model matched (`claude-sonnet-5-5` for `claude-sonnet-5-5-20261101`). */
  matched?: string;
  /** Why the window is not the model's own (Ollama's `num_ctx`). */
  note?: string;
}

/** The names a model id may be known by, most specific first: the id, without a date, without an Ollama tag or a vendor prefix. */
export function modelIdCandidates(id: string): string[] {
  const candidates = [id];
  const add = (candidate: string): void => {
    if (candidate && !candidates.includes(candidate)) candidates.push(candidate);
  };
  // `meta-llama/llama3.1` (OpenRouter, vLLM) and `anthropic.claude-…` (Bedrock-style) name the model after a prefix.
  const unprefixed = id.replace(/^[\w.-]+\//, '');
  add(unprefixed);
  for (const name of [...candidates]) {
    // Ollama tags (`qwen3:8b`, `llama3.1:70b-instruct-q4_K_M`): the family is before the colon.
    const colon = name.indexOf(':');
    if (colon > 0) add(name.slice(0, colon));
  }
  for (const name of [...candidates]) {
    // Dated aliases: `-20250929` (Anthropic), `-2025-08-07` (OpenAI), and `-latest`.
    add(name.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, ''));
  }
  return candidates;
}

/**
 * The model's window and reserve, from the best source there is: the config's entry, what its
 * endpoint reported (asked by `learnEndpointWindow`; the reserve then scales with the window), the
 * catalogue's gaps, the bundled catalogue (once loaded: `loadPriceDataset`; `learnWindow` loads it
 * before a turn that needs it), and only then a guess (and says which).
 */
export function modelWindowFor(
  model: ModelConfig,
  configured: Readonly<Record<string, ModelWindow>>,
  providers: ResolvedConfig['providers'] = {},
): ResolvedModelWindow {
  const candidates = modelIdCandidates(model.model);
  for (const id of candidates) {
    const own = configured[`${model.provider}/${id}`] ?? configured[id];
    if (own) return Object.assign({}, own, { source: 'config' as const, matched: id });
  }
  const reported = endpointWindow(model, providers);
  if (reported !== undefined) return { window: reported, source: 'endpoint' };
  for (const id of candidates) {
    const gap = CATALOGUE_GAPS[id];
    if (gap) return Object.assign({}, gap, { source: 'table' as const, matched: id });
  }
  const catalogued = catalogueWindow({
    provider: model.provider,
    model: model.model,
    baseURL: model.baseURL ?? providers[model.provider]?.baseURL,
  });
  if (catalogued !== undefined) {
    const reserve = candidates.map((id) => OUTPUT_RESERVES[id]).find((found) => found !== undefined);
    return reserve === undefined
      ? { window: catalogued, source: 'catalogue' }
      : { window: catalogued, outputReserve: reserve, source: 'catalogue' };
  }
  if (model.provider === 'ollama') {
    return {
      window: OLLAMA_DEFAULT_NUM_CTX,
      outputReserve: 512,
      source: 'default',
      note: `Ollama's default num_ctx (${OLLAMA_DEFAULT_NUM_CTX}), as its server did not say. Raised it? Set "models": { "ollama/${model.model}": { "window": … } } in the config.`,
    };
  }
  return Object.assign({}, UNKNOWN_MODEL_WINDOW, { source: 'default' as const });
}
