import type { ModelConfig } from '../collective/model-config.js';
import type { ModelWindow } from '../collective/context-schema.js';

/**
 * Context windows and output reserves of current models, by exact model id.
 * A dated alias (`claude-sonnet-4-5-20250929`) is found under its base id.
 * The config's `models` corrects or extends it (by id or `provider/id`).
 * (Skeleton: the model-table work fills in the full table.)
 */
export const MODEL_WINDOWS: Readonly<Record<string, ModelWindow>> = {
  'claude-sonnet-4-5': { window: 200_000, outputReserve: 16_000 },
  'gpt-4o': { window: 128_000, outputReserve: 16_000 },
};

/** When neither the config nor the table knows the model: a window every current chat model has. */
export const UNKNOWN_MODEL_WINDOW: ModelWindow = { window: 8_192, outputReserve: 1_024 };

/** The model's window and reserve: the config's entry, else the table's, else a small safe default (and says which). */
export function modelWindowFor(model: ModelConfig, configured: Readonly<Record<string, ModelWindow>>): ModelWindow & { source: 'config' | 'table' | 'default' } {
  const own = configured[`${model.provider}/${model.model}`] ?? configured[model.model];
  if (own) return { ...own, source: 'config' };
  const known = MODEL_WINDOWS[model.model] ?? MODEL_WINDOWS[model.model.replace(/-\d{8}$/, '')];
  if (known) return { ...known, source: 'table' };
  return { ...UNKNOWN_MODEL_WINDOW, source: 'default' };
}
