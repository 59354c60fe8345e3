import { describe, expect, it } from 'vitest';
import { AgentParticipantSchema } from '../../team/collective/participant.js';
import { DEFAULT_CONFIG, type ResolvedConfig } from '../../team/config/config-schema.js';
import { loadPriceDataset } from '../../team/config/price-dataset.js';
import { contextSettingsFor } from './context-settings.js';
import { modelWindowFor } from './model-table.js';
import { loadTokenCounter, tokenUpperBound } from './token-count.js';

const agent = (fields: Record<string, unknown> = {}) =>
  AgentParticipantSchema.parse({ id: 'worker', name: 'Worker', type: 'agent', systemPrompt: 'Work.', ...fields });

describe('contextSettingsFor', () => {
  // Hosted models' windows come from the bundled catalogue, which a turn loads before it needs it.
  beforeAll(async () => {
    await loadPriceDataset();
  });

  it('picks the small profile for a 4k model and the cloud profile for a 200k one', () => {
    const config: ResolvedConfig = { ...DEFAULT_CONFIG, models: { tiny: { window: 4_096, outputReserve: 512 } } };
    const small = contextSettingsFor(config, agent({ model: { provider: 'openai', model: 'tiny' } }));
    expect(small).toMatchObject({
      profile: 'small',
      window: 4_096,
      evictAboveTokens: 700,
      pruneAtTokens: 2_600,
      summarizeAtTokens: 3_200,
      scratchbook: true,
      toolSchemas: 'compact',
    });
    const cloud = contextSettingsFor(DEFAULT_CONFIG, agent({ model: { provider: 'anthropic', model: 'claude-sonnet-4-5-20250929' } }));
    expect(cloud).toMatchObject({ profile: 'cloud', window: 200_000, summarizeAtTokens: 200_000 - 16_000 - 13_000 });
  });

  it('guesses a small window for an unknown local model and a hosted one for an unknown remote model', () => {
    const local = contextSettingsFor(
      DEFAULT_CONFIG,
      agent({ model: { provider: 'openai', model: 'my-finetune', baseURL: 'http://127.0.0.1:8080/v1' } }),
    );
    expect(local).toMatchObject({ profile: 'small', window: 8_192, toolSchemas: 'compact' });
    const hosted = contextSettingsFor(DEFAULT_CONFIG, agent({ model: { provider: 'openai', model: 'brand-new-model' } }));
    expect(hosted).toMatchObject({ profile: 'cloud', window: 32_768, outputReserve: 4_096, toolSchemas: 'full' });
    const configured: ResolvedConfig = { ...DEFAULT_CONFIG, providers: { openai: { baseURL: 'http://localhost:1234/v1' } } };
    expect(contextSettingsFor(configured, agent({ model: { provider: 'openai', model: 'brand-new-model' } }))).toMatchObject({
      profile: 'small',
      window: 8_192,
    });
  });

  it('applies the config, then the agent, field by field over the profile', () => {
    const config: ResolvedConfig = { ...DEFAULT_CONFIG, context: { profile: 'small', window: 4_096, evictAboveTokens: 900 } };
    const settings = contextSettingsFor(config, agent({ context: { keepRecentMessages: 7 } }));
    expect(settings).toMatchObject({ profile: 'small', evictAboveTokens: 900, keepRecentMessages: 7, pruneAtTokens: 2_600 });
  });

  it('keeps most of a small window for the request when only the window is set, whatever the model table reserves', () => {
    // claude-sonnet-4-6 (the default model) keeps 32k for its reply in its 1M window; gpt-4o-mini 16,384; an unknown hosted model 4,096.
    for (const model of [
      DEFAULT_CONFIG.defaultModel,
      { provider: 'openai', model: 'gpt-4o-mini' },
      { provider: 'openai', model: 'brand-new' },
    ]) {
      for (const context of [{ window: 4_096 }, { profile: 'small', window: 4_096 }]) {
        const settings = contextSettingsFor(DEFAULT_CONFIG, agent({ model, context }));
        expect(settings).toMatchObject({
          profile: 'small',
          window: 4_096,
          outputReserve: 512,
          pruneAtTokens: 2_600,
          summarizeAtTokens: 3_200,
        });
      }
    }
    // A window at least the model's own keeps the model's reserve (GPT-5's 128k is what its input cannot take).
    expect(contextSettingsFor(DEFAULT_CONFIG, agent({ model: { provider: 'openai', model: 'gpt-5' } }))).toMatchObject({
      window: 400_000,
      outputReserve: 128_000,
    });
    expect(
      contextSettingsFor(DEFAULT_CONFIG, agent({ model: { provider: 'openai', model: 'gpt-5' }, context: { window: 100_000 } })),
    ).toMatchObject({ window: 100_000, outputReserve: 16_000 });
  });

  it('scales the small profile with the window: at 2k, 4k and 8k each threshold is below the next, and all below the request budget', () => {
    for (const window of [2_048, 4_096, 8_192]) {
      const settings = contextSettingsFor(DEFAULT_CONFIG, agent({ context: { profile: 'small', window } }));
      const budget = settings.window - settings.outputReserve;
      expect(settings.outputReserve).toBe(window / 8);
      expect(settings.evictAboveTokens).toBe(Math.round((window * 700) / 4_096));
      expect(settings.evictAboveTokens).toBeLessThan(settings.pruneAtTokens);
      expect(settings.pruneAtTokens).toBeLessThan(settings.summarizeAtTokens);
      expect(settings.summarizeAtTokens).toBeLessThan(budget);
      expect(settings.protectRecentTokens).toBeLessThan(settings.summarizeAtTokens / 2);
    }
  });

  it("takes a hosted model's window from the bundled catalogue, and says so", async () => {
    await loadPriceDataset();
    // gpt-4-0613: @pydantic/genai-prices gives it 8,192.
    expect(modelWindowFor({ provider: 'openai', model: 'gpt-4-0613' }, {})).toEqual({ window: 8_192, source: 'catalogue' });
    expect(contextSettingsFor(DEFAULT_CONFIG, agent({ model: { provider: 'openai', model: 'gpt-4-0613' } }))).toMatchObject({
      profile: 'small',
      window: 8_192,
      outputReserve: 1_024,
    });
    // A hosted model's name behind a local proxy is still that model (what the endpoint reports comes first);
    // a local server's own models are not the catalogue's.
    expect(modelWindowFor({ provider: 'openai', model: 'gpt-4-0613', baseURL: 'http://127.0.0.1:8080/v1' }, {}).source).toBe('catalogue');
    expect(modelWindowFor({ provider: 'vllm', model: 'gpt-4-0613', baseURL: 'http://127.0.0.1:8080/v1' }, {}).source).toBe('default');
  });

  it('refuses an unknown field in an agent file', () => {
    expect(() => agent({ context: { profil: 'small' } })).toThrow();
  });
});

describe('token counting', () => {
  it('counts with a real tokenizer, below the byte bound', async () => {
    const count = await loadTokenCounter();
    const text = 'The quick brown fox jumps over the lazy dog.';
    expect(count(text)).toBe(10);
    expect(count(text)).toBeLessThanOrEqual(tokenUpperBound(text));
  });

  it('counts a long run without whitespace in pieces (whole, BPE takes minutes on it)', async () => {
    const count = await loadTokenCounter();
    const run = 'a'.repeat(1_000_000);
    const tokens = count(run);
    expect(tokens).toBeGreaterThan(1_000_000 / 16);
    expect(tokens).toBeLessThanOrEqual(tokenUpperBound(run));
  });
});
