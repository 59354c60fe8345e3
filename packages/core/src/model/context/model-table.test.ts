import { AgentParticipantSchema } from '../../team/collective/participant.js';
import { DEFAULT_CONFIG, type ResolvedConfig } from '../../team/config/config-schema.js';
import { contextSettingsFor } from './context-settings.js';
import { modelIdCandidates, modelWindowFor, OLLAMA_DEFAULT_NUM_CTX, UNKNOWN_MODEL_WINDOW } from './model-table.js';

const window = (provider: string, model: string, configured: ResolvedConfig['models'] = {}) =>
  modelWindowFor({ provider, model }, configured);

describe('the model table', () => {
  it('knows current models by their exact id and by their dated aliases', () => {
    expect(window('anthropic', 'claude-opus-4-5-20251101')).toMatchObject({
      window: 200_000,
      outputReserve: 16_000,
      source: 'table',
      matched: 'claude-opus-4-5',
    });
    expect(window('anthropic', 'claude-3-7-sonnet-latest')).toMatchObject({ window: 200_000, matched: 'claude-3-7-sonnet' });
    expect(window('anthropic', 'claude-3-5-haiku-20241022')).toMatchObject({ window: 200_000, outputReserve: 8_192 });
    expect(window('openai', 'gpt-4o-2024-08-06')).toMatchObject({ window: 128_000, matched: 'gpt-4o' });
    expect(window('openai', 'gpt-4o-mini-2024-07-18')).toMatchObject({ window: 128_000, matched: 'gpt-4o-mini' });
    expect(window('openai', 'gpt-4.1-2025-04-14')).toMatchObject({ window: 1_047_576, outputReserve: 32_768 });
    // GPT-5 takes at most 272k of its 400k as input: the reserve is the rest.
    expect(window('openai', 'gpt-5-2025-08-07')).toMatchObject({ window: 400_000, outputReserve: 128_000, matched: 'gpt-5' });
    expect(window('openai', 'o3-mini-2025-01-31')).toMatchObject({ window: 200_000, matched: 'o3-mini' });
    // Exact ids, not prefixes: gpt-5-pro and o3-pro are their own rows, not gpt-5's or o3's.
    expect(window('openai', 'gpt-5-pro').matched).toBe('gpt-5-pro');
    expect(window('openai', 'o3-pro').matched).toBe('o3-pro');
    expect(window('openai', 'gpt-5-turbo-imaginary').source).toBe('default');
  });

  it("reads Ollama tags and vendor prefixes, and takes an Ollama model's window to be Ollama's default num_ctx", () => {
    expect(window('vllm', 'qwen2.5:7b-instruct')).toMatchObject({ window: 32_768, matched: 'qwen2.5' });
    expect(window('openrouter', 'meta-llama/llama3.1')).toMatchObject({ window: 131_072, matched: 'llama3.1' });
    const ollama = window('ollama', 'llama3.1:8b');
    expect(ollama).toMatchObject({ window: OLLAMA_DEFAULT_NUM_CTX, source: 'table', matched: 'llama3.1' });
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

  it('knows the default model and current Anthropic models (1M windows)', () => {
    for (const model of ['claude-sonnet-4-6', 'claude-sonnet-5', 'claude-sonnet-5-5', 'claude-opus-5-5'])
      expect(modelWindowFor({ provider: 'anthropic', model }, {})).toMatchObject({ window: 1_000_000, source: 'table' });
    expect(modelWindowFor({ provider: 'anthropic', model: DEFAULT_CONFIG.defaultModel.model }, {}).source).toBe('table');
    // The other ids of the SDK's Model union that Anthropic's model pages document.
    for (const model of [
      'claude-opus-4-6',
      'claude-opus-4-7',
      'claude-opus-4-8',
      'claude-opus-5',
      'claude-haiku-5-5',
      'claude-fable-5',
      'claude-fable-5-1',
      'claude-mythos-5',
      'claude-mythos-5-1',
    ]) {
      expect(modelWindowFor({ provider: 'anthropic', model }, {}), model).toMatchObject({
        window: 1_000_000,
        outputReserve: 32_000,
        source: 'table',
        matched: model,
      });
    }
  });
});
