import type { ModelPrice, PriceTier } from './pricing.js';

/**
 * List prices from `@pydantic/genai-prices` (a maintained dataset bundled in
 * the package: no network), looked up by exact model id. The package is
 * 0.8 MB of JavaScript and takes ~40 ms to load, so it is imported on the
 * first priced model call, never at start-up.
 */
export interface PriceDataset {
  /** The list price of a provider's model by exact id or a dated alias of one; `null` when the dataset has none. */
  priceOf(datasetProvider: string, model: string): ModelPrice | null;
  /** The dataset's provider id for an API endpoint (`https://openrouter.ai/api/v1` → `openrouter`). */
  providerForEndpoint(baseURL: string): string | undefined;
  /** The context window the dataset gives a provider's model (exact id or dated alias), if it gives one. */
  windowOf(datasetProvider: string, model: string): number | undefined;
  /** The ids of the provider's models the dataset gives a context window, in its order. */
  modelsOf(datasetProvider: string): string[];
}

/**
 * Verified corrections laid over the dataset, by its model id. Sonnet 4: base
 * and cache rates as on Anthropic's pricing page (platform.claude.com/docs/en/
 * about-claude/pricing, checked 2026-11-26); its "Long context pricing" rule,
 * a whole request above 200K prompt tokens (cache reads and writes included)
 * at $6 input / $22.50 output with the cache multipliers applied to those,
 * confirmed the same day through pages quoting it. The dataset (0.1.8) has this
 * tier for Sonnet 4.5 only. (Anthropic retired the 1M beta on 2026-04-30, so
 * the tier prices usage recorded before then.)
 */
const CORRECTIONS: Record<string, Record<string, ModelPrice>> = {
  anthropic: {
    // Newer than the dataset: Anthropic's Sonnet 5.5 page (platform.claude.com/docs/en/models/sonnet-5-5/overview, read 2026-11-26).
    'claude-sonnet-5-5': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5, cacheWrite1h: 4 },
    'claude-sonnet-4-0': {
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
      cacheWrite1h: 6,
      tiers: [{ aboveInputTokens: 200_000, input: 6, output: 22.5, cacheRead: 0.6, cacheWrite: 7.5, cacheWrite1h: 12 }],
    },
  },
};

/** A dated alias: `-20250929` (Anthropic), `-2025-08-07` (OpenAI), `@20250929` (Vertex). */
const DATED_ALIAS = /[-@](\d{8}|\d{4}-\d{2}-\d{2})$/;

/** The id without its date, or undefined when it has none. */
export function undatedId(model: string): string | undefined {
  return DATED_ALIAS.test(model) ? model.replace(DATED_ALIAS, '') : undefined;
}

type Dataset = typeof import('@pydantic/genai-prices');
type Provider = NonNullable<ReturnType<Dataset['findProvider']>>;
type ModelInfo = Provider['models'][number];
type MatchLogic = ModelInfo['match'];
type Rates = Record<string, number | { base: number; tiers: Array<{ start: number; price: number }> } | undefined>;

let loading: Promise<PriceDataset> | undefined;
/** The dataset once loaded: read synchronously where a window is resolved (`loadedPriceDataset`). */
let loaded: PriceDataset | undefined;

/** The dataset if something loaded it already (a priced call, `loadPriceDataset`); never loads it. */
export function loadedPriceDataset(): PriceDataset | undefined {
  return loaded;
}

export function loadPriceDataset(): Promise<PriceDataset> {
  loading ??= import('@pydantic/genai-prices').then(
    (dataset) => (loaded = indexDataset(dataset)),
    (error: unknown) => {
      // Tried again on the next call rather than remembered as broken for the life of the process.
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

function indexDataset(dataset: Dataset): PriceDataset {
  const indexes = new Map<string, Map<string, ModelInfo> | undefined>();
  const index = (providerId: string): Map<string, ModelInfo> | undefined => {
    if (indexes.has(providerId)) return indexes.get(providerId);
    const provider = dataset.findProvider({ providerId });
    let byId: Map<string, ModelInfo> | undefined;
    if (provider) {
      byId = new Map();
      // Exact ids only: the model's id and every literal its match rule names. A `starts_with`
      // literal counts as an id, not a prefix, so `gpt-5-pro` never takes `gpt-5`'s price.
      for (const model of provider.models)
        for (const id of [model.id, ...literalsOf(model.match)]) if (!byId.has(id.toLowerCase())) byId.set(id.toLowerCase(), model);
    }
    indexes.set(providerId, byId);
    return byId;
  };
  const prices = new Map<string, ModelPrice | null>();
  return {
    priceOf(providerId, model) {
      const key = `${providerId}/${model}`;
      if (prices.has(key)) return prices.get(key)!;
      const byId = index(providerId);
      const undated = undatedId(model);
      const info = byId?.get(model.toLowerCase()) ?? (undated !== undefined ? byId?.get(undated.toLowerCase()) : undefined);
      // A correction also prices a model the dataset does not know yet, by its id or undated id.
      const corrections = CORRECTIONS[providerId];
      const corrected = info
        ? corrections?.[info.id]
        : (corrections?.[model.toLowerCase()] ?? (undated !== undefined ? corrections?.[undated.toLowerCase()] : undefined));
      const price = corrected ?? (info ? toModelPrice(info.prices, new Date()) : null);
      prices.set(key, price);
      return price;
    },
    providerForEndpoint(baseURL) {
      return dataset.findProvider({ providerApiUrl: baseURL })?.id;
    },
    windowOf(providerId, model) {
      const byId = index(providerId);
      const undated = undatedId(model);
      const info = byId?.get(model.toLowerCase()) ?? (undated !== undefined ? byId?.get(undated.toLowerCase()) : undefined);
      return info?.context_window;
    },
    modelsOf(providerId) {
      const provider = dataset.findProvider({ providerId });
      return (provider?.models ?? []).filter((model) => model.context_window !== undefined).map((model) => model.id);
    },
  };
}

function literalsOf(match: MatchLogic): string[] {
  if ('or' in match) return match.or.flatMap(literalsOf);
  if ('equals' in match) return [match.equals];
  if ('starts_with' in match) return [match.starts_with];
  return [];
}

/** Today's rates: of prices that changed on a date, the latest in force; time-of-day discounts are left out (the standard rate is billed at most). */
function toModelPrice(prices: ModelInfo['prices'], now: Date): ModelPrice | null {
  let rates: Rates | undefined;
  if (Array.isArray(prices)) {
    for (const conditional of prices) {
      const constraint = conditional.constraint;
      if (!constraint || (constraint.type === 'start_date' && new Date(constraint.start_date) <= now)) rates = conditional.prices as Rates;
    }
  } else {
    rates = prices as Rates;
  }
  if (!rates || rates['input_mtok'] === undefined || rates['output_mtok'] === undefined) return null;
  const at = (field: string, prompt: number): number | undefined => {
    const rate = rates[field];
    if (rate === undefined || typeof rate === 'number') return rate;
    let price = rate.base;
    for (const tier of rate.tiers) if (prompt > tier.start) price = tier.price;
    return price;
  };
  const fields = (prompt: number) => ({
    input: at('input_mtok', prompt)!,
    output: at('output_mtok', prompt)!,
    ...optional('cacheRead', at('cache_read_mtok', prompt)),
    ...optional('cacheWrite', at('cache_write_mtok', prompt)),
    ...optional('cacheWrite1h', at('cache_write_1h_mtok', prompt)),
  });
  const starts = new Set<number>();
  for (const rate of Object.values(rates))
    if (rate !== undefined && typeof rate !== 'number') for (const tier of rate.tiers) starts.add(tier.start);
  const tiers: PriceTier[] = [...starts].sort((a, b) => a - b).map((start) => ({ aboveInputTokens: start, ...fields(start + 1) }));
  return { ...fields(0), ...(tiers.length > 0 ? { tiers } : {}) };
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}
