import { costOf, type ModelPrice } from './pricing.js';
import { PriceBook, prefixPricingKeys, type PricedCall } from './price-book.js';

// The expected list prices were checked on 2026-11-26: Anthropic's against its pricing page
// (base, 5-minute and 1-hour cache writes, cache hits), OpenAI's (gpt-5-pro $15/$120, o3-mini
// $1.10/$4.40) against pages quoting OpenAI's, as OpenAI's own page was not reachable from here.
const book = new PriceBook(() => ({}));
const listPrice = async (model: string, provider = 'openai'): Promise<ModelPrice | null> => (await book.quote({ provider, model })).price;
const million = { inputTokens: 1_000_000, outputTokens: 1_000_000 };

describe('prices by exact model id', () => {
  it('prices gpt-5-pro, o3-pro and o3-mini as themselves, not as the model their name starts with', async () => {
    expect(await listPrice('gpt-5')).toMatchObject({ input: 1.25, output: 10, cacheRead: 0.125 });
    expect(await listPrice('gpt-5-pro')).toMatchObject({ input: 15, output: 120 });
    expect(await listPrice('o3')).toMatchObject({ input: 2, output: 8, cacheRead: 0.5 });
    expect(await listPrice('o3-pro')).toMatchObject({ input: 20, output: 80 });
    expect(await listPrice('o3-mini')).toMatchObject({ input: 1.1, output: 4.4 });
    expect(await listPrice('gpt-4.1-mini')).toMatchObject({ input: 0.4, output: 1.6 });
    expect(costOf(million, await listPrice('gpt-5-pro'))).toBe(135);
  });

  it('prices the default model, and a current model newer than the dataset through a correction (by id and dated alias)', async () => {
    expect(await listPrice('claude-sonnet-4-6', 'anthropic')).toMatchObject({ input: 3, output: 15, cacheRead: 0.3 });
    expect(await listPrice('claude-sonnet-5-5', 'anthropic')).toEqual({
      input: 2,
      output: 10,
      cacheRead: 0.2,
      cacheWrite: 2.5,
      cacheWrite1h: 4,
    });
    expect(await listPrice('claude-sonnet-5-5-20261001', 'anthropic')).toEqual(await listPrice('claude-sonnet-5-5', 'anthropic'));
  });

  it('finds dated aliases (-YYYYMMDD, -YYYY-MM-DD, @YYYYMMDD) and nothing for a name it does not know', async () => {
    expect(await listPrice('gpt-5-2025-08-07')).toEqual(await listPrice('gpt-5'));
    expect(await listPrice('o3-2025-04-16')).toEqual(await listPrice('o3'));
    expect(await listPrice('claude-sonnet-4-5-20250929', 'anthropic')).toEqual(await listPrice('claude-sonnet-4-5', 'anthropic'));
    expect(await listPrice('claude-sonnet-4@20250514', 'anthropic')).toMatchObject({ input: 3, output: 15 });
    expect(await listPrice('claude-opus-4-1-20250805', 'anthropic')).toMatchObject({
      input: 15,
      output: 75,
      cacheRead: 1.5,
      cacheWrite: 18.75,
      cacheWrite1h: 30,
    });
    // Unknown is unknown (null, shown as such), never the price of a name it starts with.
    for (const model of ['gpt-5-foo', 'gpt-5-2025-08-07x', 'claude-sonnet-4-5-experimental', 'my-gpt-5'])
      expect(await listPrice(model, model.startsWith('claude') ? 'anthropic' : 'openai')).toBeNull();
    expect(await book.quote({ provider: 'openai-compatible', model: 'gpt-5' })).toEqual({ price: null, source: 'unknown' });
    expect(costOf(million, null)).toBeNull();
  });

  it('bills a whole request at the long-context tier once its prompt (cache included) passes 200k tokens', async () => {
    for (const model of ['claude-sonnet-4-5', 'claude-sonnet-4-20250514']) {
      const price = await listPrice(model, 'anthropic');
      expect(costOf({ inputTokens: 200_000, outputTokens: 1_000 }, price)).toBeCloseTo(0.6 + 0.015, 10);
      expect(costOf({ inputTokens: 200_001, outputTokens: 1_000 }, price)).toBeCloseTo((200_001 * 6 + 1_000 * 22.5) / 1e6, 10);
      // Cache reads count toward the threshold, and are billed at the tier's cache price.
      expect(costOf({ inputTokens: 1_000, outputTokens: 0, cacheReadTokens: 199_001 }, price)).toBeCloseTo(
        (1_000 * 6 + 199_001 * 0.6) / 1e6,
        10,
      );
    }
    // gpt-4.1 has one price up to its 1M window.
    expect((await listPrice('gpt-4.1'))?.tiers).toBeUndefined();
  });

  it('prices cache reads and 5-minute and 1-hour cache writes apart', async () => {
    const price = await listPrice('claude-haiku-4-5', 'anthropic');
    expect(price).toMatchObject({ input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25, cacheWrite1h: 2 });
    // 100k cache writes of which 40k for an hour, 50k cache reads, 10k input, 1k output.
    expect(
      costOf(
        { inputTokens: 10_000, outputTokens: 1_000, cacheReadTokens: 50_000, cacheWriteTokens: 100_000, cacheWrite1hTokens: 40_000 },
        price,
      ),
    ).toBeCloseTo((10_000 * 1 + 1_000 * 5 + 50_000 * 0.1 + 60_000 * 1.25 + 40_000 * 2) / 1e6, 10);
  });
});

describe('local models and the config', () => {
  const free = { price: { input: 0, output: 0 }, source: 'local' };

  it('treats local servers as free: local providers, loopback endpoints, scripted models', async () => {
    const local: PricedCall[] = [
      { provider: 'ollama', model: 'llama3.2' },
      { provider: 'lmstudio', model: 'qwen3-4b' },
      { provider: 'llamacpp', model: 'gemma' },
      { provider: 'scripted', model: 'lead' },
      { provider: 'openai-compatible', model: 'gpt-5', baseURL: 'http://127.0.0.1:8000/v1' },
      { provider: 'anthropic', model: 'claude-sonnet-4-5', baseURL: 'http://localhost:4010' },
      { provider: 'openai', model: 'gpt-5', baseURL: 'http://[::1]:9000/v1' },
    ];
    for (const call of local) expect(await book.quote(call)).toEqual(free);
    expect((await book.quote({ provider: 'anthropic', model: 'claude-sonnet-4-5', baseURL: 'https://gateway.example.com' })).source).toBe(
      'list',
    );
    expect(
      (await book.quote({ provider: 'openai-compatible', model: 'anthropic/claude-sonnet-4.5', baseURL: 'https://openrouter.ai/api/v1' }))
        .source,
    ).toBe('list');
  });

  it('takes the config first: exact ids with dated aliases, provider/model, explicit globs; a local model it prices is charged', async () => {
    const pricing: Record<string, ModelPrice> = {
      'llama3.2': { input: 1, output: 2 },
      'anthropic/claude-sonnet-4-5': { input: 30, output: 150 },
      'gpt-5': { input: 9, output: 9 },
      'gpt-5-*': { input: 7, output: 7 },
      'o3*': { input: 5, output: 5 },
    };
    const configured = new PriceBook(() => pricing);
    const priceOf = async (call: PricedCall) => configured.quote(call);
    expect(await priceOf({ provider: 'ollama', model: 'llama3.2' })).toEqual({ price: { input: 1, output: 2 }, source: 'config' });
    expect((await priceOf({ provider: 'anthropic', model: 'claude-sonnet-4-5-20250929' })).price).toEqual({ input: 30, output: 150 });
    expect((await priceOf({ provider: 'openrouter', model: 'claude-sonnet-4-5' })).price).toBeNull();
    expect((await priceOf({ provider: 'openai', model: 'gpt-5-2025-08-07' })).price).toEqual({ input: 9, output: 9 });
    expect((await priceOf({ provider: 'openai', model: 'gpt-5-pro' })).price).toEqual({ input: 7, output: 7 });
    expect((await priceOf({ provider: 'openai', model: 'o3-mini' })).price).toEqual({ input: 5, output: 5 });
    expect(await priceOf({ provider: 'openai', model: 'gpt-4.1' })).toMatchObject({ source: 'list' });
  });

  it('leaves a price unknown, and the call standing, when the list cannot be loaded', async () => {
    const broken = new PriceBook(
      () => ({}),
      () => Promise.reject(new Error('Cannot find package @pydantic/genai-prices')),
    );
    expect(await broken.quote({ provider: 'anthropic', model: 'claude-sonnet-4-5' })).toEqual({ price: null, source: 'unknown' });
    // Config prices and local models never need the list.
    expect(broken.quote({ provider: 'ollama', model: 'llama3.2' })).toEqual({ price: { input: 0, output: 0 }, source: 'local' });
  });

  it('prefetch starts loading the list a call will need, once, and the quote after it uses that load', async () => {
    let loads = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const real = book.quote({ provider: 'anthropic', model: 'claude-sonnet-4-6' });
    const dataset = await import('./price-dataset.js').then((module) => module.loadPriceDataset());
    const prefetching = new PriceBook(
      () => ({ 'cheap-model': { input: 1, output: 1 } }),
      async () => {
        loads++;
        await released;
        return dataset;
      },
    );
    // Config prices and local models need no list: nothing loads.
    prefetching.prefetch({ provider: 'openai', model: 'cheap-model' });
    prefetching.prefetch({ provider: 'ollama', model: 'llama3.2' });
    expect(loads).toBe(0);
    prefetching.prefetch({ provider: 'anthropic', model: 'claude-sonnet-4-6' });
    prefetching.prefetch({ provider: 'openai', model: 'gpt-5' });
    expect(loads).toBe(1);
    const quote = prefetching.quote({ provider: 'anthropic', model: 'claude-sonnet-4-6' });
    release();
    expect(await quote).toEqual(await real);
    expect(loads).toBe(1);
    // Loaded: later quotes are synchronous.
    expect(prefetching.quote({ provider: 'openai', model: 'gpt-5' })).toMatchObject({ source: 'list' });
  });

  it('a prefetch that fails is no unhandled rejection, and the quote after it tries the list again', async () => {
    let loads = 0;
    const flaky = new PriceBook(
      () => ({}),
      async () => {
        loads++;
        if (loads === 1) throw new Error('Cannot find package @pydantic/genai-prices');
        const { loadPriceDataset } = await import('./price-dataset.js');
        return loadPriceDataset();
      },
    );
    flaky.prefetch({ provider: 'anthropic', model: 'claude-sonnet-4-6' });
    expect(loads).toBe(1);
    // Let the failed load settle (an unhandled rejection would fail the test run).
    await new Promise((resolve) => setImmediate(resolve));
    expect(await flaky.quote({ provider: 'anthropic', model: 'claude-sonnet-4-6' })).toMatchObject({ source: 'list' });
    expect(loads).toBe(2);
  });

  it('names the pricing keys written for prefix matching, with the model they no longer price', () => {
    const pricing = { 'gpt-5': { input: 1, output: 1 }, 'o3*': { input: 1, output: 1 }, 'claude-sonnet-4-5': { input: 1, output: 1 } };
    const models = [
      { provider: 'openai', model: 'gpt-5-mini' },
      { provider: 'openai', model: 'o3-pro' },
      { provider: 'anthropic', model: 'claude-sonnet-4-5-20250929' },
    ];
    expect(prefixPricingKeys(pricing, models)).toEqual([{ key: 'gpt-5', model: 'gpt-5-mini' }]);
  });
});

describe('the windows of hosted models', () => {
  it('knows Anthropic’s and OpenAI’s without loading the catalogue, and knows when the catalogue could say more', async () => {
    // Fresh modules: no other test of this file has loaded the catalogue into them.
    vi.resetModules();
    const { catalogueWindow, catalogueWindowNeedsDataset } = await import('./price-book.js');
    const { loadedPriceDataset } = await import('./price-dataset.js');
    expect(catalogueWindow({ provider: 'anthropic', model: 'claude-sonnet-4-5-20250929' })).toBe(200_000);
    expect(catalogueWindow({ provider: 'openai', model: 'gpt-4.1' })).toBe(1_000_000);
    // A hosted name behind a local proxy is still that model.
    expect(catalogueWindow({ provider: 'anthropic', model: 'claude-sonnet-4-5', baseURL: 'http://127.0.0.1:4000' })).toBe(200_000);
    expect(catalogueWindow({ provider: 'anthropic', model: 'claude-bench' })).toBeUndefined();
    expect(catalogueWindowNeedsDataset({ provider: 'anthropic', model: 'claude-bench' })).toBe(false);
    expect(catalogueWindowNeedsDataset({ provider: 'openai', model: 'my-finetune', baseURL: 'http://127.0.0.1:8080/v1' })).toBe(false);
    expect(catalogueWindowNeedsDataset({ provider: 'ollama', model: 'qwen3:8b', baseURL: 'http://127.0.0.1:11434/v1' })).toBe(false);
    expect(loadedPriceDataset()).toBeUndefined();
    expect(catalogueWindowNeedsDataset({ provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5' })).toBe(true);
    expect(catalogueWindowNeedsDataset({ provider: 'groq', model: 'llama-3.3-70b', baseURL: 'https://api.groq.com/openai/v1' })).toBe(true);
  });
});
