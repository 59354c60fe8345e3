import { z } from 'zod';
import { errorMessage, ProviderError } from '../../kernel/index.js';
import type { ModelConfig, ResolvedConfig } from '../../team/index.js';
import { isLocal } from '../../team/index.js';
import { resolveProviderOptions, type ProviderOptions } from './provider-options.js';
import { PROVIDER_PRESETS } from './provider-presets.js';
import { redirectSafeFetch } from './redirect-safe-fetch.js';

/** What contacting a model's endpoint found: its models, whether the model is one of them, and the window it reported. */
export type EndpointProbe =
  | {
      status: 'ok';
      endpoint: string;
      /** The ids the endpoint listed; undefined when it lists none (Anthropic-protocol servers, a server without `/models`). */
      models: string[] | undefined;
      /** The window the endpoint reported for the model, and where it said so (`vLLM /v1/models max_model_len`). */
      window: number | undefined;
      windowFrom: string | undefined;
    }
  | {
      status: 'not-configured' | 'unreachable' | 'wrong-key' | 'unknown-model' | 'failed';
      endpoint: string | undefined;
      problem: string;
      fix: string;
    };

/** The smallest a window can be and still hold a request: anything below is a server's misreport, not a window. */
const MINIMUM_WINDOW = 256;

const ModelEntrySchema = z
  .object({
    id: z.string(),
    /** vLLM. */
    max_model_len: z.number().int().positive().optional(),
    /** OpenRouter. */
    context_length: z.number().int().positive().nullable().optional(),
    /** LM Studio's `/api/v0/models`: what the loaded model was given, and its most. */
    loaded_context_length: z.number().int().positive().optional(),
    max_context_length: z.number().int().positive().optional(),
  })
  .passthrough();
const ModelListSchema = z.object({ data: z.array(ModelEntrySchema) }).passthrough();
/** Ollama's `/api/show`: `parameters` is the Modelfile's lines (`num_ctx 8192`), `model_info` has `<arch>.context_length`. */
const OllamaShowSchema = z
  .object({ parameters: z.string().optional(), model_info: z.record(z.string(), z.unknown()).optional() })
  .passthrough();
/** llama.cpp's `/props`: the context the server was started with. */
const LlamaCppPropsSchema = z
  .object({
    n_ctx: z.number().int().positive().optional(),
    default_generation_settings: z.object({ n_ctx: z.number().int().positive().optional() }).passthrough().optional(),
  })
  .passthrough();

/** Ollama's default `num_ctx` (its `docs/context-length.mdx`); kept here so this file needs nothing of `context/`. */
const OLLAMA_NUM_CTX = 4_096;

/**
 * Contacts the endpoint a model is served from, spending no token: lists its models (OpenAI
 * protocol `GET /models`, Anthropic `GET /v1/models/{model}`), and asks the server what window it
 * serves the model with where it can say (vLLM's and OpenRouter's model lists, LM Studio's
 * `/api/v0/models`, Ollama's `/api/show`, llama.cpp's `/props`). Never throws: what went wrong is
 * the answer, with the fix.
 */
export async function probeEndpoint(
  model: ModelConfig,
  providers: ResolvedConfig['providers'],
  env: NodeJS.ProcessEnv,
  options: { timeoutMs: number },
): Promise<EndpointProbe> {
  let resolved: ProviderOptions;
  try {
    resolved = resolveProviderOptions(model, providers[model.provider] ?? {}, env);
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    return { status: 'not-configured', endpoint: undefined, problem: error.problem, fix: error.fix };
  }
  const endpoint = (resolved.baseURL ?? resolved.preset.sdkBaseURL ?? '').replace(/\/+$/, '');
  const signal = AbortSignal.timeout(options.timeoutMs);
  const headers: Record<string, string> =
    resolved.preset.protocol === 'anthropic'
      ? { 'anthropic-version': '2023-06-01', ...(resolved.apiKey ? { 'x-api-key': resolved.apiKey } : {}) }
      : resolved.apiKey
        ? { authorization: `Bearer ${resolved.apiKey}` }
        : {};
  const get = (url: string, init: RequestInit = {}): Promise<Response> =>
    redirectSafeFetch(url, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) }, signal });
  const keyFix = resolved.preset.apiKeyEnv
    ? `Check ${resolved.preset.apiKeyEnv} (or providers.${model.provider}.apiKey in the global Legion config).`
    : 'Check the API key.';

  const listURL =
    resolved.preset.protocol === 'anthropic' ? `${endpoint}/v1/models/${encodeURIComponent(model.model)}` : `${endpoint}/models`;
  let response: Response;
  try {
    response = await get(listURL);
  } catch (error) {
    return unreachable(endpoint, error, signal.aborted, options.timeoutMs, model, resolved);
  }
  if (response.status === 401 || response.status === 403)
    return {
      status: 'wrong-key',
      endpoint,
      problem: `${endpoint} refused the key (${response.status}: ${await refusal(response)})`,
      fix: keyFix,
    };
  if (resolved.preset.protocol === 'anthropic') {
    if (response.status === 404)
      return {
        status: 'unknown-model',
        endpoint,
        problem: `${endpoint} does not know the model "${model.model}" (404: ${await refusal(response)})`,
        fix: 'Check the model name in the agent\'s "model" setting ("legion models" lists the ones Legion knows).',
      };
    if (!response.ok) return failed(endpoint, listURL, response.status, await refusal(response));
    await response.body?.cancel();
    return { status: 'ok', endpoint, models: undefined, window: undefined, windowFrom: undefined };
  }

  let models: string[] | undefined;
  let window: { tokens: number; from: string } | undefined;
  if (response.ok) {
    const list = ModelListSchema.safeParse(await response.json().catch(() => undefined));
    if (list.success) {
      models = list.data.data.map((entry) => entry.id);
      const entry = list.data.data.find((candidate) => candidate.id === model.model);
      const reported = entry?.max_model_len ?? entry?.context_length ?? undefined;
      if (reported !== undefined)
        window = { tokens: reported, from: `${listURL} ${entry?.max_model_len !== undefined ? 'max_model_len' : 'context_length'}` };
    }
  } else if (response.status !== 404 && response.status !== 405) {
    return failed(endpoint, listURL, response.status, await refusal(response));
  } else await response.body?.cancel();

  // A local server that did not say: ask the way each kind of server can (the others answer 404, quickly).
  const local = isLocal({ provider: model.provider, baseURL: endpoint });
  if (window === undefined && local) window = await askServer(endpoint, model.model, get);
  if (models !== undefined && !models.includes(model.model) && !(window && window.from.includes('/api/show')))
    return {
      status: 'unknown-model',
      endpoint,
      problem: `${endpoint} does not serve the model "${model.model}"`,
      fix: `Use one it lists (${models.slice(0, 8).join(', ')}${models.length > 8 ? ', …' : ''}) in the agent's "model" setting${model.provider === 'ollama' ? `, or run "ollama pull ${model.model}"` : ''}.`,
    };
  return { status: 'ok', endpoint, models, window: window?.tokens, windowFrom: window?.from };
}

/** Ollama's `/api/show`, LM Studio's `/api/v0/models`, llama.cpp's `/props`: the first that answers with a window. */
async function askServer(
  endpoint: string,
  model: string,
  get: (url: string, init?: RequestInit) => Promise<Response>,
): Promise<{ tokens: number; from: string } | undefined> {
  const root = endpoint.replace(/\/v1$/, '');
  const json = async (url: string, init?: RequestInit): Promise<unknown> => {
    try {
      const response = await get(url, init);
      if (!response.ok) {
        await response.body?.cancel();
        return undefined;
      }
      return await response.json();
    } catch {
      return undefined;
    }
  };
  const show = OllamaShowSchema.safeParse(
    await json(`${root}/api/show`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model }) }),
  );
  if (show.success && (show.data.parameters !== undefined || show.data.model_info !== undefined)) {
    const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(show.data.parameters ?? '')?.[1];
    if (numCtx !== undefined) return { tokens: Number(numCtx), from: `${root}/api/show num_ctx` };
    const trained = Object.entries(show.data.model_info ?? {}).find(([key]) => key.endsWith('.context_length'))?.[1];
    // Ollama serves a model with its default num_ctx whatever it was trained for: the smaller of the two is what fits.
    if (typeof trained === 'number' && trained > 0)
      return {
        tokens: Math.min(trained, OLLAMA_NUM_CTX),
        from: `${root}/api/show (context_length ${trained}; Ollama's default num_ctx ${OLLAMA_NUM_CTX})`,
      };
  }
  const studio = z.object({ data: z.array(ModelEntrySchema) }).safeParse(await json(`${root}/api/v0/models`));
  const loaded = studio.success ? studio.data.data.find((entry) => entry.id === model) : undefined;
  const studioWindow = loaded?.loaded_context_length ?? loaded?.max_context_length;
  if (studioWindow !== undefined) return { tokens: studioWindow, from: `${root}/api/v0/models` };
  const props = LlamaCppPropsSchema.safeParse(await json(`${root}/props`));
  const nCtx = props.success ? (props.data.default_generation_settings?.n_ctx ?? props.data.n_ctx) : undefined;
  if (nCtx !== undefined) return { tokens: nCtx, from: `${root}/props n_ctx` };
  return undefined;
}

function unreachable(
  endpoint: string,
  error: unknown,
  timedOut: boolean,
  timeoutMs: number,
  model: ModelConfig,
  resolved: ProviderOptions,
): EndpointProbe {
  const setting = `model.baseURL${resolved.preset.baseURLEnv ? ` or ${resolved.preset.baseURLEnv}` : ''}`;
  if (timedOut)
    return {
      status: 'unreachable',
      endpoint,
      problem: `${endpoint} did not answer within ${timeoutMs} ms`,
      fix: `Check that the endpoint is up, and the base URL (${setting}).`,
    };
  const cause = deepestCause(error);
  return {
    status: 'unreachable',
    endpoint,
    problem: `cannot connect to ${endpoint}: ${cause}`,
    fix: /ECONNREFUSED/.test(cause)
      ? `Start the model server${model.provider === 'ollama' ? ' ("ollama serve")' : ''}, or correct the base URL (${setting}).`
      : /bad port/.test(cause)
        ? `Use another port in the base URL (${setting}): fetch refuses this one (it is reserved for other protocols).`
        : `Check the host name and your network, and the base URL (${setting}).`,
  };
}

function failed(endpoint: string, url: string, status: number, refusal: string): EndpointProbe {
  return {
    status: 'failed',
    endpoint,
    problem: `${url} answered ${status}: ${refusal}`,
    fix: status >= 500 ? 'The server failed: check its log, and try again.' : 'Check the base URL: it may not be the API root.',
  };
}

/** The server's own words: the message of its JSON error body, else the start of the body. */
async function refusal(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof message === 'string' && message.trim() !== '') return message.trim();
  } catch {
    // Not JSON: the text itself.
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, 200) || response.statusText || 'no message';
}

function deepestCause(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5; depth++) {
    const cause = typeof current === 'object' && current !== null ? (current as { cause?: unknown }).cause : undefined;
    if (cause === undefined || cause === null) break;
    current = cause;
  }
  const code = typeof current === 'object' && current !== null ? (current as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? `${code} (${errorMessage(current)})` : errorMessage(current);
}

/** What an endpoint reported for a model: where it was asked (the endpoint the environment named then), when, and the window. */
interface Reported {
  endpoint: string;
  at: number;
  window: number | undefined;
}

/** Windows the endpoints reported, by provider, configured endpoint and model; and the asks under way. */
const settled = new Map<string, Reported>();
const asking = new Map<string, Promise<void>>();

/** How old an endpoint's answer may be before the next turn asks again (in the background: the old answer holds meanwhile). */
export const ENDPOINT_WINDOW_REFRESH_MS = 5 * 60_000;

function cacheKey(model: ModelConfig, providers: ResolvedConfig['providers']): string {
  return `${model.provider}\n${model.baseURL ?? providers[model.provider]?.baseURL ?? ''}\n${model.model}`;
}

/** The window the model's endpoint reported, if it was asked and said (`learnEndpointWindow`). */
export function endpointWindow(model: ModelConfig, providers: ResolvedConfig['providers']): number | undefined {
  const window = settled.get(cacheKey(model, providers))?.window;
  return window !== undefined && window >= MINIMUM_WINDOW ? window : undefined;
}

/**
 * Asks the model's endpoint for its window, once per endpoint and model, waiting at most
 * `waitMs` (a later turn finds the answer when it comes later). Asked again when the environment
 * names another endpoint, and in the background once the answer is `refreshAfterMs` old (a
 * model reloaded with another `num_ctx`). Only servers that can say are asked: an OpenAI-protocol
 * server that is local, or OpenRouter; Anthropic's and OpenAI's own APIs list no windows.
 */
export async function learnEndpointWindow(
  model: ModelConfig,
  providers: ResolvedConfig['providers'],
  env: NodeJS.ProcessEnv,
  waitMs: number,
  refreshAfterMs: number = ENDPOINT_WINDOW_REFRESH_MS,
): Promise<void> {
  const key = cacheKey(model, providers);
  const preset = PROVIDER_PRESETS[model.provider];
  const endpoint =
    model.baseURL ??
    providers[model.provider]?.baseURL ??
    (preset?.baseURLEnv ? env[preset.baseURLEnv] : undefined) ??
    preset?.defaultBaseURL ??
    '';
  const known = settled.get(key);
  const askable =
    preset?.protocol === 'openai' &&
    (model.provider === 'openrouter' || isLocal({ provider: model.provider, baseURL: endpoint || undefined }));
  if (!askable) {
    settled.set(key, { endpoint, at: Date.now(), window: undefined });
    return;
  }
  const sameEndpoint = known !== undefined && known.endpoint === endpoint;
  if (sameEndpoint && Date.now() - known.at < refreshAfterMs) return;
  let pending = asking.get(key);
  if (!pending) {
    pending = probeEndpoint(model, providers, env, { timeoutMs: 10_000 }).then((probe) => {
      settled.set(key, { endpoint, at: Date.now(), window: probe.status === 'ok' ? probe.window : undefined });
      asking.delete(key);
    });
    asking.set(key, pending);
  }
  // A refresh goes on in the background: the answer this endpoint gave before holds until the new one comes.
  if (sameEndpoint) return;
  if (known !== undefined) settled.delete(key);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([pending, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
  clearTimeout(timer);
}

/** Forgets what endpoints reported (a test's servers come and go on reused ports). */
export function forgetEndpointWindows(): void {
  asking.clear();
  settled.clear();
}
