import type { ModelConfig, ModelWindow, ResolvedConfig } from '../../team/index.js';
import { catalogueWindow } from '../../team/index.js';
import { endpointWindow } from '../providers/endpoint-probe.js';

/**
 * Context windows and output reserves of current models, by exact model id.
 *
 * `window` is the provider's context window (input and output together); `outputReserve` is what
 * the context builder keeps free for the reply — not the model's largest output, but enough for a
 * long answer or a reasoning model's thinking, and, where the provider caps the input below the
 * window (GPT-5: 400k window, at most 272k input), exactly the difference, so window − reserve is
 * never more than the provider accepts.
 *
 * Sources (checked November 2026):
 * - Anthropic: platform.claude.com/docs/en/about-claude/models/overview and the per-model pages
 *   (`models/opus-4-5/overview`: 200K context, 64K output). Claude Sonnet 4 and 4.5 take a 1M
 *   window only with the `context-1m-2025-08-07` beta header and a higher usage tier; Legion does
 *   not send it, so the table says 200k. Who enables the beta sets `models` in the config:
 *   `{ "models": { "claude-sonnet-4-5": { "window": 1000000 } } }`.
 * - OpenAI: platform.openai.com/docs/models (gpt-5: 400,000 context, 128,000 max output;
 *   gpt-5-pro: 272,000 max output; gpt-4.1: 1,047,576 context, 32,768 output; gpt-4o: 128,000 /
 *   16,384; o3, o3-pro, o3-mini, o4-mini: 200,000 / 100,000).
 * - Local models: their model cards' trained context (Llama 3.1+: 128k, Qwen2.5: 32k, Qwen3:
 *   40k as Ollama packages it, Mistral 7B: 32k, Gemma 3: 128k, Phi-4: 16k, DeepSeek-R1 distills:
 *   128k). Served by Ollama, the window is Ollama's `num_ctx`, not the model's: see
 *   `OLLAMA_DEFAULT_NUM_CTX`.
 */
export const MODEL_WINDOWS: Readonly<Record<string, ModelWindow>> = {
  // Anthropic: 200k windows; 16k kept for the reply (pi's reserve; Claude Code compacts ~13k below the window).
  // Anthropic's model pages (platform.claude.com/docs/en/models/<model>/overview, read 2026-11-26): 1M windows, 128K output.
  'claude-sonnet-5-5': { window: 1_000_000, outputReserve: 32_000 },
  'claude-sonnet-5': { window: 1_000_000, outputReserve: 32_000 },
  'claude-sonnet-4-6': { window: 1_000_000, outputReserve: 32_000 },
  'claude-opus-5-5': { window: 1_000_000, outputReserve: 32_000 },
  // The same pages (models/<model>/overview, read 2026-11-26): 1M context, 128K output each. Mythos 5 and 5.1
  // share Fable 5's and 5.1's specifications (the Fable pages say so).
  'claude-haiku-5-5': { window: 1_000_000, outputReserve: 32_000 },
  'claude-opus-5': { window: 1_000_000, outputReserve: 32_000 },
  'claude-opus-4-8': { window: 1_000_000, outputReserve: 32_000 },
  'claude-opus-4-7': { window: 1_000_000, outputReserve: 32_000 },
  'claude-opus-4-6': { window: 1_000_000, outputReserve: 32_000 },
  'claude-fable-5-1': { window: 1_000_000, outputReserve: 32_000 },
  'claude-fable-5': { window: 1_000_000, outputReserve: 32_000 },
  'claude-mythos-5-1': { window: 1_000_000, outputReserve: 32_000 },
  'claude-mythos-5': { window: 1_000_000, outputReserve: 32_000 },
  // Not in the table: claude-fable-5-2 and claude-mythos-5-2 (in the SDK's Model union, but no Anthropic page seen
  // for them: a guessed window until someone checks) and claude-mythos-preview (retired 2026-06-30, the SDK says).
  'claude-opus-4-5': { window: 200_000, outputReserve: 16_000 },
  'claude-opus-4-1': { window: 200_000, outputReserve: 16_000 },
  'claude-opus-4-0': { window: 200_000, outputReserve: 16_000 },
  'claude-opus-4': { window: 200_000, outputReserve: 16_000 },
  'claude-sonnet-4-5': { window: 200_000, outputReserve: 16_000 },
  'claude-sonnet-4-0': { window: 200_000, outputReserve: 16_000 },
  'claude-sonnet-4': { window: 200_000, outputReserve: 16_000 },
  'claude-haiku-4-5': { window: 200_000, outputReserve: 16_000 },
  'claude-3-7-sonnet': { window: 200_000, outputReserve: 16_000 },
  'claude-3-5-sonnet': { window: 200_000, outputReserve: 8_192 },
  'claude-3-5-haiku': { window: 200_000, outputReserve: 8_192 },
  'claude-3-opus': { window: 200_000, outputReserve: 4_096 },
  'claude-3-haiku': { window: 200_000, outputReserve: 4_096 },

  // OpenAI GPT-5 family: 400k window, 272k input at most.
  'gpt-5': { window: 400_000, outputReserve: 128_000 },
  'gpt-5-mini': { window: 400_000, outputReserve: 128_000 },
  'gpt-5-nano': { window: 400_000, outputReserve: 128_000 },
  'gpt-5-codex': { window: 400_000, outputReserve: 128_000 },
  'gpt-5-pro': { window: 400_000, outputReserve: 128_000 },
  'gpt-5.1': { window: 400_000, outputReserve: 128_000 },
  'gpt-5.1-codex': { window: 400_000, outputReserve: 128_000 },
  'gpt-5-chat-latest': { window: 128_000, outputReserve: 16_384 },
  // GPT-4.1: a 1M window (1,047,576), 32,768 output.
  'gpt-4.1': { window: 1_047_576, outputReserve: 32_768 },
  'gpt-4.1-mini': { window: 1_047_576, outputReserve: 32_768 },
  'gpt-4.1-nano': { window: 1_047_576, outputReserve: 32_768 },
  'gpt-4o': { window: 128_000, outputReserve: 16_384 },
  'gpt-4o-mini': { window: 128_000, outputReserve: 16_384 },
  'chatgpt-4o-latest': { window: 128_000, outputReserve: 16_384 },
  'gpt-4-turbo': { window: 128_000, outputReserve: 4_096 },
  'gpt-4': { window: 8_192, outputReserve: 1_024 },
  'gpt-3.5-turbo': { window: 16_385, outputReserve: 4_096 },
  // Reasoning models: their thinking is output too, so a larger reserve than a chat model's.
  o3: { window: 200_000, outputReserve: 32_000 },
  'o3-pro': { window: 200_000, outputReserve: 32_000 },
  'o3-mini': { window: 200_000, outputReserve: 32_000 },
  'o4-mini': { window: 200_000, outputReserve: 32_000 },
  o1: { window: 200_000, outputReserve: 32_000 },
  'o1-mini': { window: 128_000, outputReserve: 32_000 },
  'codex-mini-latest': { window: 200_000, outputReserve: 32_000 },

  // Local models (Ollama names; the same ids serve vLLM, LM Studio and llama.cpp). Their trained windows.
  llama3: { window: 8_192, outputReserve: 1_024 },
  'llama3.1': { window: 131_072, outputReserve: 8_192 },
  'llama3.2': { window: 131_072, outputReserve: 8_192 },
  'llama3.3': { window: 131_072, outputReserve: 8_192 },
  'qwen2.5': { window: 32_768, outputReserve: 4_096 },
  'qwen2.5-coder': { window: 32_768, outputReserve: 4_096 },
  qwen3: { window: 40_960, outputReserve: 8_192 },
  'qwen3-coder': { window: 262_144, outputReserve: 16_000 },
  mistral: { window: 32_768, outputReserve: 4_096 },
  'mistral-nemo': { window: 131_072, outputReserve: 8_192 },
  'mistral-small': { window: 32_768, outputReserve: 4_096 },
  gemma2: { window: 8_192, outputReserve: 1_024 },
  gemma3: { window: 131_072, outputReserve: 8_192 },
  phi3: { window: 131_072, outputReserve: 4_096 },
  'phi3.5': { window: 131_072, outputReserve: 4_096 },
  phi4: { window: 16_384, outputReserve: 2_048 },
  'phi4-mini': { window: 131_072, outputReserve: 4_096 },
  'deepseek-r1': { window: 131_072, outputReserve: 16_000 },
  'gpt-oss': { window: 131_072, outputReserve: 16_000 },
};

/** When neither the config nor the table knows the model: a window every current chat model has. */
export const UNKNOWN_MODEL_WINDOW: ModelWindow = { window: 8_192, outputReserve: 1_024 };

/**
 * Ollama serves every model with `num_ctx` tokens unless told otherwise, whatever the model was
 * trained for, and silently drops the start of a longer prompt. Its docs (`docs/context-length.mdx`)
 * give 4k below 24 GiB of VRAM (older releases: 2048). Who raised it (`OLLAMA_CONTEXT_LENGTH`, a
 * Modelfile's `num_ctx`) says so in the config's `models` (`"ollama/qwen3:8b": { "window": 32768 }`).
 */
export const OLLAMA_DEFAULT_NUM_CTX = 4_096;

/** Where a model's window came from: `endpoint` is what its server reported; `default` means nobody knew the model (doctor warns). */
export type ModelWindowSource = 'config' | 'endpoint' | 'table' | 'catalogue' | 'default';

export interface ResolvedModelWindow extends ModelWindow {
  source: ModelWindowSource;
  /** The table id that matched (`claude-sonnet-4-5` for `claude-sonnet-4-5-20250929`). */
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
 * The model's window and reserve: the config's entry, else what its endpoint reported (asked by
 * `learnEndpointWindow`; the reserve then scales with the window), else the table's, else a small
 * safe default (and says which).
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
    const known = MODEL_WINDOWS[id];
    if (!known) continue;
    if (model.provider === 'ollama' && known.window > OLLAMA_DEFAULT_NUM_CTX) {
      return {
        window: OLLAMA_DEFAULT_NUM_CTX,
        outputReserve: Math.min(known.outputReserve ?? 1_024, 1_024),
        source: 'table',
        matched: id,
        note: `Ollama's default num_ctx (${OLLAMA_DEFAULT_NUM_CTX}); the model takes ${known.window}. Raised it? Set "models": { "ollama/${model.model}": { "window": … } } in the config.`,
      };
    }
    return Object.assign({}, known, { source: 'table' as const, matched: id });
  }
  // The bundled price catalogue knows windows of hosted models the table does not (once loaded: `loadPriceDataset`).
  const catalogued = catalogueWindow({
    provider: model.provider,
    model: model.model,
    baseURL: model.baseURL ?? providers[model.provider]?.baseURL,
  });
  if (catalogued !== undefined) return { window: catalogued, source: 'catalogue' };
  return Object.assign({}, UNKNOWN_MODEL_WINDOW, { source: 'default' as const });
}
