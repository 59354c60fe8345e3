import { z } from 'zod';
import type { Usage } from '../message.js';

/** US dollars per million tokens. */
export const ModelPriceSchema = z
  .object({
    input: z.number().nonnegative(),
    output: z.number().nonnegative(),
    cacheRead: z.number().nonnegative().optional(),
    cacheWrite: z.number().nonnegative().optional(),
  })
  .strict();
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/**
 * List prices of common models (USD per million tokens), matched by exact name
 * or longest prefix, so dated variants (`claude-sonnet-4-5-20250929`) find
 * their family. Override or extend with `pricing` in the config.
 */
export const DEFAULT_PRICES: Record<string, ModelPrice> = {
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275 },
  o3: { input: 2, output: 8, cacheRead: 0.5 },
};

/** The price of a model: config overrides first, then the table; exact name, else longest prefix. */
export function priceFor(model: string, overrides: Record<string, ModelPrice> = {}): ModelPrice | undefined {
  for (const table of [overrides, DEFAULT_PRICES]) {
    if (table[model]) return table[model];
    let best: string | undefined;
    for (const key of Object.keys(table)) if (model.startsWith(key) && (!best || key.length > best.length)) best = key;
    if (best) return table[best];
  }
  return undefined;
}

/** Cost in USD, or undefined for a model without a known price (local models, new names). */
export function costOf(usage: Usage, price: ModelPrice | undefined): number | undefined {
  if (!price) return undefined;
  // Providers report cached tokens inside or beside input tokens; Legion records them beside it.
  const cost =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    (usage.cacheReadTokens ?? 0) * (price.cacheRead ?? price.input) +
    (usage.cacheWriteTokens ?? 0) * (price.cacheWrite ?? price.input);
  return cost / 1_000_000;
}
