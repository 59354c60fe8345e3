import { CATALOGUE_WINDOWS } from './catalogue-windows.generated.js';
import { isLocal } from './local-endpoint.js';
import { loadedPriceDataset, loadPriceDataset, undatedId, type PriceDataset } from './price-dataset.js';
import type { ModelPrice } from './pricing.js';

/** The model a call went to, as far as its price depends on it. */
export interface PricedCall {
  /** The provider name of the model config (`anthropic`, `ollama`, …; `scripted` for test scripts). */
  provider: string;
  model: string;
  /** Where the call went, when the provider knows (a loopback address means a local server). */
  baseURL?: string | undefined;
}

/** Why a call costs what it costs: a `pricing` entry of the config, a local model, the list price, or nothing known. */
export type PriceSource = 'config' | 'local' | 'list' | 'unknown';

export interface PriceQuote {
  /** `null`: no price is known, and none is guessed. */
  price: ModelPrice | null;
  source: PriceSource;
}

/**
 * The context window the bundled catalogue (`@pydantic/genai-prices`) gives a hosted model: at once
 * for Anthropic's and OpenAI's (generated from it), for others once the catalogue is loaded
 * (`loadPriceDataset`; a priced call loads it too); undefined before, and for a local server's
 * models, which it does not list. A hosted model's name reached through a local
 * proxy (`anthropic` at a localhost URL) is still that model: its window is the model's, though its
 * price is not the list's.
 */
export function catalogueWindow(call: PricedCall): number | undefined {
  const indexed = CATALOGUE_WINDOWS[DATASET_PROVIDERS[call.provider] ?? ''];
  if (indexed !== undefined) {
    const undated = undatedId(call.model);
    return indexed[call.model.toLowerCase()] ?? (undated !== undefined ? indexed[undated.toLowerCase()] : undefined);
  }
  const dataset = loadedPriceDataset();
  if (!dataset) return undefined;
  if (DATASET_PROVIDERS[call.provider] === undefined && isLocal(call)) return undefined;
  const provider = DATASET_PROVIDERS[call.provider] ?? (call.baseURL !== undefined ? dataset.providerForEndpoint(call.baseURL) : undefined);
  return provider === undefined ? undefined : dataset.windowOf(provider, call.model);
}

/**
 * Whether `catalogueWindow` could say more for this call once the whole catalogue is loaded
 * (`loadPriceDataset`): not for Anthropic's and OpenAI's models, whose windows are generated into a
 * small file (catalogue-windows.test.ts), nor for a local server's own models; yes for OpenRouter
 * and for a provider the catalogue knows by its hosted endpoint.
 */
export function catalogueWindowNeedsDataset(call: PricedCall): boolean {
  if (CATALOGUE_WINDOWS[DATASET_PROVIDERS[call.provider] ?? ''] !== undefined) return false;
  return DATASET_PROVIDERS[call.provider] !== undefined || !isLocal(call);
}

/** The models the bundled catalogue lists for a built-in provider with their windows (none before it is loaded). */
export function catalogueModels(provider: string): string[] {
  const datasetProvider = DATASET_PROVIDERS[provider];
  return datasetProvider === undefined ? [] : (loadedPriceDataset()?.modelsOf(datasetProvider) ?? []);
}

/** Providers of the built-in presets and the dataset's name for them. */
const DATASET_PROVIDERS: Readonly<Record<string, string>> = { anthropic: 'anthropic', openai: 'openai', openrouter: 'openrouter' };

const FREE: ModelPrice = { input: 0, output: 0 };

/**
 * The price of a model call: the config's `pricing` first (keys are exact
 * model ids or `provider/model`, with dated aliases, or an explicit family
 * glob such as `gpt-5*`), then free for a local server, then the list price
 * by exact id; unknown otherwise. The list loads on the first call it is needed for.
 */
export class PriceBook {
  private dataset: PriceDataset | undefined;

  constructor(
    private readonly overrides: () => Readonly<Record<string, ModelPrice>>,
    private readonly load: () => Promise<PriceDataset> = loadPriceDataset,
  ) {}

  /**
   * Synchronous unless the list has to be loaded (the first list-priced call of
   * the process): config prices and local models cost no promise per call.
   */
  quote(call: PricedCall): PriceQuote | Promise<PriceQuote> {
    // Every reply is priced: a model's quote is worked out once per config (a reloaded config is a new object).
    const pricing = this.overrides();
    let known = this.quotes.get(pricing);
    if (known === undefined) this.quotes.set(pricing, (known = new Map()));
    const key = `${call.provider}\n${call.model}\n${call.baseURL ?? ''}`;
    const cached = known.get(key);
    if (cached !== undefined) return cached;
    const quote = this.quoteNow(pricing, call);
    if (!(quote instanceof Promise)) {
      if (known.size >= 256) known.clear();
      known.set(key, quote);
    }
    return quote;
  }

  private readonly quotes = new WeakMap<object, Map<string, PriceQuote>>();

  private quoteNow(pricing: Readonly<Record<string, ModelPrice>>, call: PricedCall): PriceQuote | Promise<PriceQuote> {
    const configured = configuredPrice(pricing, call);
    if (configured) return { price: configured, source: 'config' };
    if (isLocal(call)) return { price: FREE, source: 'local' };
    const datasetProvider = DATASET_PROVIDERS[call.provider];
    if (datasetProvider === undefined && call.baseURL === undefined) return UNKNOWN;
    if (this.dataset) return listQuote(this.dataset, datasetProvider, call);
    return this.loadList().then(
      (dataset) => listQuote(dataset, datasetProvider, call),
      // A list that cannot load (a broken install) leaves prices unknown; the call itself stands.
      (): PriceQuote => UNKNOWN,
    );
  }

  /**
   * Starts loading the list when `call` will need it, without waiting: called as a request goes
   * out, so the list (some 40 ms of loading) is ready when the reply's usage is priced, instead
   * of adding to the turn after the reply. A failure is left for `quote` to meet (and retry).
   */
  prefetch(call: PricedCall): void {
    if (this.dataset || this.listLoading) return;
    const quote = this.quote(call);
    if (quote instanceof Promise) quote.catch(() => undefined);
  }

  private listLoading: Promise<PriceDataset> | undefined;

  /** One load at a time: a prefetch and the quote after it share it. */
  private loadList(): Promise<PriceDataset> {
    this.listLoading ??= this.load().then(
      (dataset) => (this.dataset = dataset),
      (error: unknown) => {
        this.listLoading = undefined;
        throw error;
      },
    );
    return this.listLoading;
  }
}

const UNKNOWN: PriceQuote = { price: null, source: 'unknown' };

function listQuote(dataset: PriceDataset, datasetProvider: string | undefined, call: PricedCall): PriceQuote {
  const provider = datasetProvider ?? dataset.providerForEndpoint(call.baseURL!);
  const price = provider === undefined ? null : dataset.priceOf(provider, call.model);
  return price ? { price, source: 'list' } : UNKNOWN;
}

/** A `pricing` entry of the config for this call, by the most specific key that names it. */
export function configuredPrice(
  pricing: Readonly<Record<string, ModelPrice>>,
  call: Pick<PricedCall, 'provider' | 'model'>,
): ModelPrice | undefined {
  const undated = undatedId(call.model);
  for (const id of undated === undefined ? [call.model] : [call.model, undated]) {
    const price = pricing[`${call.provider}/${id}`] ?? pricing[id];
    if (price) return price;
  }
  let best: string | undefined;
  for (const key of Object.keys(pricing)) {
    if (!key.endsWith('*')) continue;
    const prefix = key.slice(0, -1);
    if (
      (call.model.startsWith(prefix) || `${call.provider}/${call.model}`.startsWith(prefix)) &&
      (best === undefined || key.length > best.length)
    )
      best = key;
  }
  return best === undefined ? undefined : pricing[best];
}

/**
 * Pricing keys written for the prefix matching Legion no longer does: a key
 * without `*` that is a prefix of a model in use but not that model or a dated
 * alias of it. Each comes with the model it used to price.
 */
export function prefixPricingKeys(
  pricing: Readonly<Record<string, ModelPrice>>,
  models: ReadonlyArray<Pick<PricedCall, 'provider' | 'model'>>,
): Array<{ key: string; model: string }> {
  const found: Array<{ key: string; model: string }> = [];
  for (const key of Object.keys(pricing)) {
    if (key.endsWith('*')) continue;
    const model = models.find(
      (call) => call.model !== key && call.model.startsWith(key) && configuredPrice({ [key]: pricing[key]! }, call) === undefined,
    );
    if (model) found.push({ key, model: model.model });
  }
  return found;
}

export { isLocal };
