import { z } from 'zod';
import type { Usage } from '../../kernel/index.js';

const perMillion = z.number().nonnegative();

/** Rates that replace the base ones for a whole request whose prompt is above `aboveInputTokens`. */
export const PriceTierSchema = z
  .object({
    /** Prompt tokens (input, cache reads and cache writes together) above which the whole request is billed at this tier. */
    aboveInputTokens: z.number().int().positive(),
    input: perMillion,
    output: perMillion,
    cacheRead: perMillion.optional(),
    cacheWrite: perMillion.optional(),
    cacheWrite1h: perMillion.optional(),
  })
  .strict();
export type PriceTier = z.infer<typeof PriceTierSchema>;

/** US dollars per million tokens. */
export const ModelPriceSchema = z
  .object({
    input: perMillion,
    output: perMillion,
    cacheRead: perMillion.optional(),
    /** Cache writes that live 5 minutes (Anthropic's default). */
    cacheWrite: perMillion.optional(),
    /** Cache writes that live an hour (Anthropic's `ttl: "1h"`); 5-minute price when absent. */
    cacheWrite1h: perMillion.optional(),
    /** Long-context tiers, lowest threshold first or in any order: the highest one passed applies. */
    tiers: z.array(PriceTierSchema).optional(),
  })
  .strict();
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/** Prompt tokens as providers count them for a long-context tier: what was read, from the cache or not. */
export function promptTokens(usage: Usage): number {
  return usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

/**
 * Cost in USD. `null` is "unknown" (a model without a price), never a guess;
 * 0 is "free" (a local model). Legion records cached tokens beside input
 * tokens (OpenAI's are moved out of `prompt_tokens` by its provider).
 */
export function costOf(usage: Usage, price: ModelPrice | null | undefined): number | null {
  if (!price) return null;
  const prompt = promptTokens(usage);
  // Anthropic and OpenAI bill the whole request at the tier its prompt reached, output included.
  let rates: ModelPrice | PriceTier = price;
  for (const tier of price.tiers ?? [])
    if (prompt > tier.aboveInputTokens && (!('aboveInputTokens' in rates) || tier.aboveInputTokens > rates.aboveInputTokens)) rates = tier;
  const cacheWrite = rates.cacheWrite ?? rates.input;
  const longWrites = Math.min(usage.cacheWrite1hTokens ?? 0, usage.cacheWriteTokens ?? 0);
  const cost =
    usage.inputTokens * rates.input +
    usage.outputTokens * rates.output +
    (usage.cacheReadTokens ?? 0) * (rates.cacheRead ?? rates.input) +
    ((usage.cacheWriteTokens ?? 0) - longWrites) * cacheWrite +
    longWrites * (rates.cacheWrite1h ?? cacheWrite);
  return cost / 1_000_000;
}
