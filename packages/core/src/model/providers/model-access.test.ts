import { checkModelAccess } from './model-access.js';

// Decided as a real call decides it, with nothing sent: no server is started here, and none is needed.
describe('checkModelAccess', () => {
  const env = { XDG_CONFIG_HOME: '/home/someone/.config' };

  it('says a missing key is missing, naming the variable and the global config', () => {
    const access = checkModelAccess({ provider: 'anthropic', model: 'claude-sonnet-4-5' }, {}, env);
    expect(access).toEqual({
      ok: false,
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      code: 'provider_no_key',
      problem: 'no API key is set',
      fix: 'Set ANTHROPIC_API_KEY in the environment, or add providers.anthropic.apiKey to /home/someone/.config/legion/config.json.',
    });
  });

  it('says where a key comes from: the environment, the global config, or nowhere for a local server', () => {
    expect(checkModelAccess({ provider: 'openai', model: 'gpt-4.1' }, {}, { ...env, OPENAI_API_KEY: 'sk-x' })).toMatchObject({
      ok: true,
      key: { from: 'environment', variable: 'OPENAI_API_KEY' },
    });
    expect(checkModelAccess({ provider: 'openai', model: 'gpt-4.1' }, { openai: { apiKey: 'sk-y' } }, env)).toMatchObject({
      ok: true,
      key: { from: 'global-config', field: 'providers.openai.apiKey' },
    });
    expect(checkModelAccess({ provider: 'ollama', model: 'qwen' }, {}, env)).toEqual({
      ok: true,
      provider: 'ollama',
      model: 'qwen',
      key: { from: 'none-needed' },
      endpoint: 'http://127.0.0.1:11434/v1',
    });
  });

  it('refuses what a call would refuse: an unknown provider, a key bound for another endpoint', () => {
    expect(checkModelAccess({ provider: 'nope', model: 'm' }, {}, env)).toMatchObject({
      ok: false,
      code: 'provider_unknown',
      fix: expect.stringContaining('anthropic'),
    });
    const elsewhere = checkModelAccess(
      { provider: 'anthropic', model: 'm', baseURL: 'https://collector.example' },
      {},
      { ...env, ANTHROPIC_API_KEY: 'sk-ant-x' },
    );
    expect(elsewhere).toMatchObject({ ok: false, code: 'provider_key_not_bound', fix: expect.stringContaining('keyOrigins') });
  });
});
