import type { ModelConfig, ResolvedConfig } from '../../team/index.js';
import { ProviderError } from '../../kernel/index.js';
import { resolveProviderOptions } from './provider-options.js';

/** Where a model's key would come from, found without calling the model. */
export type ModelKeySource = { from: 'none-needed' } | { from: 'environment'; variable: string } | { from: 'global-config'; field: string };

export type ModelAccess =
  | {
      ok: true;
      provider: string;
      model: string;
      key: ModelKeySource;
      /** Undefined: the SDK's own default endpoint. */ endpoint: string | undefined;
    }
  | { ok: false; provider: string; model: string; code: string; problem: string; fix: string };

/**
 * Whether a model could be called as configured — a known provider, a key
 * where one is needed, an endpoint the key may go to — decided exactly as a
 * real call decides it, but without sending anything (no tokens spent). What
 * `legion doctor` checks for each agent.
 */
export function checkModelAccess(
  model: ModelConfig,
  providers: ResolvedConfig['providers'],
  env: NodeJS.ProcessEnv = process.env,
): ModelAccess {
  const settings = providers[model.provider] ?? {};
  try {
    const options = resolveProviderOptions(model, settings, env);
    const key: ModelKeySource =
      options.apiKey === undefined
        ? { from: 'none-needed' }
        : settings.apiKey !== undefined
          ? { from: 'global-config', field: `providers.${model.provider}.apiKey` }
          : { from: 'environment', variable: options.preset.apiKeyEnv ?? '' };
    return { ok: true, provider: model.provider, model: model.model, key, endpoint: options.baseURL };
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    return { ok: false, provider: model.provider, model: model.model, code: error.code, problem: error.problem, fix: error.fix };
  }
}
