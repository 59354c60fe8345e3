import { AgentParticipantSchema } from '../../team/collective/participant.js';
import { DEFAULT_CONFIG, type ResolvedConfig } from '../../team/config/config-schema.js';
import { contextSettingsFor, outputReserveFor } from './context-settings.js';
import { catalogueWindow } from '../../team/config/price-book.js';
import { loadPriceDataset } from '../../team/config/price-dataset.js';
import { providerOfModelName } from './model-catalogue.js';
import {
  CATALOGUE_GAPS,
  modelIdCandidates,
  modelWindowFor,
  OLLAMA_DEFAULT_NUM_CTX,
  OUTPUT_RESERVES,
  UNKNOWN_MODEL_WINDOW,
} from './model-table.js';

const window = (provider: string, model: string, configured: ResolvedConfig['models'] = {}) =>
  modelWindowFor({ provider, model }, configured);
const agentOn = (provider: string, model: string) =>
  AgentParticipantSchema.parse({ id: 'a', name: 'A', type: 'agent', systemPrompt: 'x', model: { provider, model } });

describe('the model table', () => {
  beforeAll(async () => {
    await loadPriceDataset();
  });

  it("takes a hosted model's window from the bundled catalogue, by exact id and by dated alias, with the reserves it cannot give", () => {
    expect(window('anthropic', 'claude-opus-4-5-20251101')).toEqual({ window: 200_000, source: 'catalogue' });
    expect(window('anthropic', 'claude-sonnet-4-6')).toEqual({ window: 1_000_000, source: 'catalogue' });
    expect(window('openai', 'gpt-4o-2024-08-06')).toEqual({ window: 128_000, source: 'catalogue' });
    // GPT-5 takes at most 272k of its 400k as input: the reserve is the rest.
    expect(window('openai', 'gpt-5-2025-08-07')).toEqual({ window: 400_000, outputReserve: 128_000, source: 'catalogue' });
    expect(window('openai', 'o3-mini-2025-01-31')).toEqual({ window: 200_000, outputReserve: 32_000, source: 'catalogue' });
    // Exact ids, not prefixes: gpt-5-pro and o3-pro are their own rows, not gpt-5's or o3's.
    expect(window('openai', 'gpt-5-turbo-imaginary').source).toBe('default');
    // Sized by the reserve's scaling: a quarter of a window, at most 16k, 32k from a million tokens.
    expect(contextSettingsFor(DEFAULT_CONFIG, agentOn('anthropic', 'claude-sonnet-4-6'))).toMatchObject({
      window: 1_000_000,
      outputReserve: 32_000,
    });
    expect(contextSettingsFor(DEFAULT_CONFIG, agentOn('anthropic', 'claude-sonnet-4-5'))).toMatchObject({
      window: 200_000,
      outputReserve: 16_000,
    });
  });

  it('has an entry only where the catalogue lacks the model or states it wrongly: one it has caught up with fails here', () => {
    for (const [id, entry] of Object.entries(CATALOGUE_GAPS)) {
      const provider = providerOfModelName(id);
      expect(provider, id).toBeDefined();
      const catalogued = catalogueWindow({ provider: provider!, model: id });
      expect(catalogued, `${id}: the catalogue now gives ${catalogued}, as the entry does: delete the entry`).not.toBe(entry.window);
      expect(window(provider!, id)).toMatchObject({ window: entry.window, source: 'table', matched: id });
    }
  });

  it('keeps a reserve only for a model the catalogue sizes and where the scaling would keep less', () => {
    for (const [id, reserve] of Object.entries(OUTPUT_RESERVES)) {
      const catalogued = catalogueWindow({ provider: 'openai', model: id });
      expect(catalogued, `${id}: not in the catalogue, so its reserve never applies`).toBeDefined();
      expect(reserve, `${id}: the scaling keeps as much`).toBeGreaterThan(outputReserveFor(catalogued!, { window: catalogued! }));
    }
  });

  it("reads Ollama tags and vendor prefixes, and takes an Ollama model its server did not size to have Ollama's default num_ctx", () => {
    const ollama = window('ollama', 'llama3.1:8b');
    expect(ollama).toMatchObject({ window: OLLAMA_DEFAULT_NUM_CTX, source: 'default' });
    expect(ollama.note).toMatch(/num_ctx.*"ollama\/llama3\.1:8b"/);
  });

  it('gives an unknown model the safe default and says so, after trying each name it may be known by', () => {
    expect(modelIdCandidates('acme/my-finetune-2025-01-02:q4')).toEqual([
      'acme/my-finetune-2025-01-02:q4',
      'my-finetune-2025-01-02:q4',
      'acme/my-finetune-2025-01-02',
      'my-finetune-2025-01-02',
      'acme/my-finetune',
      'my-finetune',
    ]);
    expect(window('openai-compatible', 'acme/my-finetune-2025-01-02:q4')).toEqual({ ...UNKNOWN_MODEL_WINDOW, source: 'default' });
  });

  it('lets the config correct or add a model, by id or provider/id, dated aliases included', () => {
    const configured = {
      'claude-sonnet-4-5': { window: 1_000_000 },
      'ollama/qwen3:8b': { window: 32_768, outputReserve: 4_096 },
      'my-finetune': { window: 16_000 },
    };
    expect(window('anthropic', 'claude-sonnet-4-5-20250929', configured)).toMatchObject({ window: 1_000_000, source: 'config' });
    expect(window('ollama', 'qwen3:8b', configured)).toEqual({
      window: 32_768,
      outputReserve: 4_096,
      source: 'config',
      matched: 'qwen3:8b',
    });
    expect(window('openai-compatible', 'my-finetune', configured)).toMatchObject({ window: 16_000, source: 'config' });
  });

  it('is overridden per agent by its context window and reserve', () => {
    const config: ResolvedConfig = { ...DEFAULT_CONFIG, models: { 'gpt-4o': { window: 64_000, outputReserve: 8_000 } } };
    const agent = AgentParticipantSchema.parse({
      id: 'a',
      name: 'A',
      type: 'agent',
      systemPrompt: 'x',
      model: { provider: 'openai', model: 'gpt-4o-2024-08-06' },
      context: { window: 32_000 },
    });
    expect(contextSettingsFor(config, agent)).toMatchObject({ window: 32_000, outputReserve: 8_000, profile: 'cloud' });
    const ollama = AgentParticipantSchema.parse({
      id: 'b',
      name: 'B',
      type: 'agent',
      systemPrompt: 'x',
      model: { provider: 'ollama', model: 'qwen3:8b' },
    });
    expect(contextSettingsFor(DEFAULT_CONFIG, ollama)).toMatchObject({ window: OLLAMA_DEFAULT_NUM_CTX, profile: 'small' });
  });
});
