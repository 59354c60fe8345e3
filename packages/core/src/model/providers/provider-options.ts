import type { ModelConfig } from '../../team/index.js';
import { ProviderError } from '../../kernel/index.js';
import { globalConfigPath } from '../../team/index.js';
import type { ProviderSettings } from './ProviderFactory.js';
import { PROVIDER_PRESETS, type ProviderPreset } from './provider-presets.js';

export interface ProviderOptions {
  provider: string;
  model: ModelConfig;
  preset: ProviderPreset;
  apiKey: string | undefined;
  /** Undefined lets the SDK read its own base-URL variable or use its default. */
  baseURL: string | undefined;
  /** The whole call, every retry and wait included. */
  timeoutMs: number;
  maxRetries: number;
  /** Silence that ends an attempt as stalled (before or after the headers). */
  idleTimeoutMs: number;
  /** The longest `retry-after` Legion waits out; a longer ask ends the call with an error. */
  maxRetryWaitMs: number;
}

export const DEFAULT_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;

/**
 * Where the key and endpoint come from: the participant's model config, then
 * the provider's settings in the global config, then the environment.
 */
export function resolveProviderOptions(
  model: ModelConfig,
  settings: ProviderSettings,
  env: NodeJS.ProcessEnv = process.env,
): ProviderOptions {
  const preset = PROVIDER_PRESETS[model.provider];
  if (!preset) {
    throw new ProviderError(
      model.provider,
      model.model,
      `unknown provider "${model.provider}"`,
      `Use one of: ${Object.keys(PROVIDER_PRESETS).join(', ')}.`,
      {
        code: 'provider_unknown',
      },
    );
  }
  const apiKey = settings.apiKey ?? (preset.apiKeyEnv ? nonEmpty(env[preset.apiKeyEnv]) : undefined);
  if (preset.requiresKey && !apiKey) {
    throw new ProviderError(
      model.provider,
      model.model,
      'no API key is set',
      `Set ${preset.apiKeyEnv} in the environment, or add providers.${model.provider}.apiKey to ${globalConfigPath(env)}.`,
      { code: 'provider_no_key' },
    );
  }
  const homeBaseURL = settings.baseURL ?? (preset.baseURLEnv ? nonEmpty(env[preset.baseURLEnv]) : undefined) ?? preset.defaultBaseURL;
  const baseURL = model.baseURL ?? homeBaseURL;
  if (apiKey !== undefined && model.baseURL !== undefined) assertKeyMayGo(model, settings, [homeBaseURL, preset.sdkBaseURL], env);
  if (model.provider === 'openai-compatible' && !baseURL) {
    throw new ProviderError(
      model.provider,
      model.model,
      'no base URL is set',
      'Set "baseURL" in the participant\'s model config (e.g. http://127.0.0.1:8000/v1).',
      {
        code: 'provider_no_base_url',
      },
    );
  }
  return {
    provider: model.provider,
    model,
    preset,
    apiKey,
    baseURL,
    timeoutMs: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: settings.maxRetries ?? DEFAULT_MAX_RETRIES,
    idleTimeoutMs: settings.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    maxRetryWaitMs: settings.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS,
  };
}

/**
 * A key is bound to its provider's endpoint: a participant whose
 * `model.baseURL` points elsewhere (written by an agent through the collective
 * tools, say) must not carry the key there, unless the user listed the place.
 */
function assertKeyMayGo(model: ModelConfig, settings: ProviderSettings, homes: Array<string | undefined>, env: NodeJS.ProcessEnv): void {
  const target = originOf(model.baseURL!);
  const allowed = [...homes, ...(settings.keyOrigins ?? [])].filter((url): url is string => url !== undefined).map(originOf);
  if (allowed.includes(target)) return;
  throw new ProviderError(
    model.provider,
    model.model,
    `the ${model.provider} key is not sent to ${target} (model.baseURL): keys go only to their provider's endpoint${allowed.length > 0 ? ` (${[...new Set(allowed)].join(', ')})` : ''}`,
    `If ${target} should receive it, add "${target}" to providers.${model.provider}.keyOrigins (or set providers.${model.provider}.baseURL) in ${globalConfigPath(env)}; otherwise remove model.baseURL from the participant.`,
    { code: 'provider_key_not_bound' },
  );
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.length > 0 ? value : undefined;
}
