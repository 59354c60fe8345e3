import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AgentParticipant } from '../collective/participant.js';
import { AgentParticipantSchema } from '../collective/participant.js';
import { ConfigError } from '../../kernel/errors.js';
import { ConfigLayerSchema, DEFAULT_CONFIG } from './config-schema.js';
import { globalConfigPath, loadConfig, mergeConfig, settingsForAgent } from './load-config.js';

let dir: string;
let globalFile: string;
let workspaceFile: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'legion-config-'));
  globalFile = join(dir, 'xdg', 'legion', 'config.json');
  workspaceFile = join(dir, 'project', '.legion', 'config.json');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function write(path: string, value: unknown): string {
  mkdirSync(dirname(path), { recursive: true });
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  writeFileSync(path, text);
  return text;
}

function loadError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected loadConfig to fail');
}

function agent(extra: Partial<AgentParticipant> = {}): AgentParticipant {
  return AgentParticipantSchema.parse({ id: 'dev', type: 'agent', name: 'Dev', systemPrompt: 'You code.', ...extra });
}

describe('loadConfig', () => {
  it('is the built-in defaults when there are no files', () => {
    const loaded = loadConfig({ workspaceConfigFile: workspaceFile, globalConfigFile: globalFile });
    expect(loaded).toEqual({ config: DEFAULT_CONFIG, sources: [], storageUrlFromWorkspaceFile: false });
  });

  it('layers defaults, then the global config, then the workspace config', () => {
    write(globalFile, {
      version: 1,
      entryAgent: 'global-entry',
      defaultModel: { provider: 'openai', model: 'gpt-4.1' },
      limits: { maxDepth: 3, maxIterations: 10 },
      providers: { openai: { apiKey: 'sk-global', timeoutMs: 1000 }, anthropic: { apiKey: 'sk-ant' } },
      storage: { fsync: 'message' },
    });
    write(workspaceFile, {
      entryAgent: 'coordinator',
      limits: { maxIterations: 40 },
      providers: { openai: { baseURL: 'http://localhost:11434/v1', timeoutMs: 5000 } },
    });
    const { config, sources } = loadConfig({ workspaceConfigFile: workspaceFile, globalConfigFile: globalFile });
    expect(sources).toEqual([globalFile, workspaceFile]);
    expect(config).toEqual({
      ...DEFAULT_CONFIG,
      entryAgent: 'coordinator',
      defaultModel: { provider: 'openai', model: 'gpt-4.1' },
      // each limit from the highest layer that sets it
      limits: {
        maxDepth: 3,
        maxIterations: 40,
        toolTimeoutMs: 120_000,
        maxRepeatedToolCalls: 3,
        maxMessageBytes: 1_048_576,
        maxReplyBytes: 1_048_576,
        maxParallelDelegates: 8,
        maxModelCallsPerMessage: 300,
        maxDelegationsPerMessage: 50,
      },
      // provider settings merge field by field: the key stays global, the endpoint comes from the workspace
      providers: {
        openai: { apiKey: 'sk-global', baseURL: 'http://localhost:11434/v1', timeoutMs: 5000 },
        anthropic: { apiKey: 'sk-ant' },
      },
      storage: { fsync: 'message' },
    });
  });

  it('uses the workspace config alone when there is no global one', () => {
    write(workspaceFile, { defaultModel: { provider: 'ollama', model: 'qwen3' } });
    const { config, sources } = loadConfig({ workspaceConfigFile: workspaceFile, globalConfigFile: globalFile });
    expect(sources).toEqual([workspaceFile]);
    expect(config.defaultModel).toEqual({ provider: 'ollama', model: 'qwen3' });
    expect(config.limits).toEqual(DEFAULT_CONFIG.limits);
  });

  it('does not change the defaults it merges over', () => {
    const before = structuredClone(DEFAULT_CONFIG);
    write(globalFile, { limits: { maxDepth: 1 }, providers: { x: { timeoutMs: 1 } } });
    loadConfig({ globalConfigFile: globalFile });
    expect(DEFAULT_CONFIG).toEqual(before);
  });

  it('rejects an API key in the workspace config, naming the file, the field and the fix', () => {
    const text = write(workspaceFile, { providers: { anthropic: { apiKey: 'sk-ant-secret' } } });
    const error = loadError(() => loadConfig({ workspaceConfigFile: workspaceFile, globalConfigFile: globalFile }));
    expect(error.file).toBe(workspaceFile);
    expect(error.field).toBe('providers.anthropic.apiKey');
    expect(error.message).toContain(`${workspaceFile} (field "providers.anthropic.apiKey")`);
    expect(error.message).toContain('meant to be committed');
    expect(error.fix).toContain('environment variable');
    expect(error.fix).toContain(globalFile);
    expect(error.message).not.toContain('sk-ant-secret');
    expect(readFileSync(workspaceFile, 'utf8')).toBe(text);
  });

  it("takes remote agents' headers from the global config, by origin, and refuses them in the workspace config", () => {
    const remoteAgents = { 'https://agents.example.com': { headers: { Authorization: 'Bearer ${env:AGENTS_TOKEN}' } } };
    write(globalFile, { remoteAgents });
    expect(loadConfig({ globalConfigFile: globalFile }).config.remoteAgents).toEqual(remoteAgents);

    write(workspaceFile, { remoteAgents: { 'https://evil.example': { headers: { 'X-Forward': 'anything' } } } });
    const error = loadError(() => loadConfig({ workspaceConfigFile: workspaceFile, globalConfigFile: globalFile }));
    expect(error.file).toBe(workspaceFile);
    expect(error.field).toBe('remoteAgents');
    expect(error.fix).toContain(globalFile);
  });

  it('refuses a remote agent keyed by anything but an http(s) origin', () => {
    write(globalFile, { remoteAgents: { 'https://agents.example.com/path': { headers: {} } } });
    const error = loadError(() => loadConfig({ globalConfigFile: globalFile }));
    expect(error.field).toBe('remoteAgents.https://agents.example.com/path');
  });

  it('names the global config file when it is invalid', () => {
    write(globalFile, { limits: { maxDepth: 'deep' } });
    const error = loadError(() => loadConfig({ workspaceConfigFile: workspaceFile, globalConfigFile: globalFile }));
    expect(error.file).toBe(globalFile);
    expect(error.field).toBe('limits.maxDepth');
    expect(error.message).toMatch(/^\S+xdg\/legion\/config\.json \(field "limits\.maxDepth"\): expected a number, got the string "deep"/);
    expect(error.fix).toContain('global Legion config');
  });

  it('names the global config file when it is not JSON', () => {
    write(globalFile, '{ "limits": ');
    const error = loadError(() => loadConfig({ globalConfigFile: globalFile }));
    expect(error.file).toBe(globalFile);
    expect(error.message).toContain('is not valid JSON');
  });

  it('names an unknown workspace field and a wrong storage mode', () => {
    write(workspaceFile, { entryAgnet: 'coordinator' });
    const unknown = loadError(() => loadConfig({ workspaceConfigFile: workspaceFile, globalConfigFile: globalFile }));
    expect(unknown.field).toBe('entryAgnet');
    expect(unknown.message).toContain('is not a known field');
    write(workspaceFile, { storage: { fsync: 'always' } });
    const mode = loadError(() => loadConfig({ workspaceConfigFile: workspaceFile, globalConfigFile: globalFile }));
    expect(mode.message).toContain('(field "storage.fsync"): expected one of "message", "turn", "never", got the string "always"');
  });

  it('rejects a base URL without http(s), a common slip for local servers', () => {
    write(workspaceFile, { providers: { ollama: { baseURL: 'localhost:11434' } } });
    const error = loadError(() => loadConfig({ workspaceConfigFile: workspaceFile, globalConfigFile: globalFile }));
    expect(error.field).toBe('providers.ollama.baseURL');
    expect(error.message).toContain('expected a URL such as');
  });

  it('reads the global config from $XDG_CONFIG_HOME when no file is given', () => {
    write(globalFile, { entryAgent: 'from-xdg' });
    const { config, sources } = loadConfig({ env: { XDG_CONFIG_HOME: join(dir, 'xdg') } });
    expect(sources).toEqual([globalFile]);
    expect(config.entryAgent).toBe('from-xdg');
  });
});

describe('globalConfigPath', () => {
  it('honours XDG_CONFIG_HOME', () => {
    expect(globalConfigPath({ XDG_CONFIG_HOME: '/custom/config' })).toBe('/custom/config/legion/config.json');
  });

  it('falls back to ~/.config when XDG_CONFIG_HOME is unset, empty or relative', () => {
    expect(globalConfigPath({ HOME: '/home/someone' })).toBe('/home/someone/.config/legion/config.json');
    expect(globalConfigPath({ HOME: '/home/someone', XDG_CONFIG_HOME: '' })).toBe('/home/someone/.config/legion/config.json');
    expect(globalConfigPath({ HOME: '/home/someone', XDG_CONFIG_HOME: 'relative/dir' })).toBe('/home/someone/.config/legion/config.json');
    expect(globalConfigPath({})).toBe(join(homedir(), '.config', 'legion', 'config.json'));
  });
});

describe('mergeConfig', () => {
  it('lets a later layer replace the default model whole', () => {
    const merged = mergeConfig(DEFAULT_CONFIG, [
      ConfigLayerSchema.parse({ defaultModel: { provider: 'openai', model: 'gpt-4.1', temperature: 0.2 } }),
      ConfigLayerSchema.parse({ defaultModel: { provider: 'anthropic', model: 'claude-haiku-4-5' } }),
    ]);
    expect(merged.defaultModel).toEqual({ provider: 'anthropic', model: 'claude-haiku-4-5' });
  });

  it('sandboxes commands by default, without a network; a later layer sets either', () => {
    expect([DEFAULT_CONFIG.sandbox, DEFAULT_CONFIG.sandboxNetwork]).toEqual(['on', 'off']);
    const merged = mergeConfig(DEFAULT_CONFIG, [
      ConfigLayerSchema.parse({ sandbox: 'required', sandboxNetwork: 'on' }),
      ConfigLayerSchema.parse({ sandbox: 'off' }),
    ]);
    expect([merged.sandbox, merged.sandboxNetwork]).toEqual(['off', 'on']);
    expect(() => ConfigLayerSchema.parse({ sandbox: 'yes' })).toThrow();
  });

  it('takes an allow-list of hosts as the network; a later layer replaces it whole', () => {
    const allow = { allow: ['registry.npmjs.org', '*.github.com', '10.0.0.5', '[::1]'] };
    const merged = mergeConfig(DEFAULT_CONFIG, [
      ConfigLayerSchema.parse({ sandboxNetwork: { allow: ['example.com'] } }),
      ConfigLayerSchema.parse({ sandboxNetwork: allow }),
    ]);
    expect(merged.sandboxNetwork).toEqual(allow);
    for (const wrong of [
      { allow: [] },
      { allow: ['https://example.com'] },
      { allow: ['example.com:443'] },
      { allow: ['*'] },
      { allow: ['*.0.1'] },
    ])
      expect(() => ConfigLayerSchema.parse({ sandboxNetwork: wrong }), JSON.stringify(wrong)).toThrow();
    expect(() => ConfigLayerSchema.parse({ sandboxNetwork: { allow: ['a.b'], deny: ['c.d'] } })).toThrow();
  });
});

describe('settingsForAgent (the participant layer)', () => {
  const config = mergeConfig(DEFAULT_CONFIG, [ConfigLayerSchema.parse({ limits: { maxDepth: 4 } })]);

  it('uses the resolved config for an agent without its own settings', () => {
    expect(settingsForAgent(config, agent())).toEqual({ model: DEFAULT_CONFIG.defaultModel, limits: config.limits });
  });

  it("takes the agent's model and its limits over the config, limit by limit", () => {
    const settings = settingsForAgent(config, agent({ model: { provider: 'openai', model: 'o4-mini' }, limits: { maxIterations: 99 } }));
    expect(settings.model).toEqual({ provider: 'openai', model: 'o4-mini' });
    expect(settings.limits).toEqual({
      maxDepth: 4,
      maxIterations: 99,
      toolTimeoutMs: 120_000,
      maxRepeatedToolCalls: 3,
      maxMessageBytes: 1_048_576,
      maxReplyBytes: 1_048_576,
      maxParallelDelegates: 8,
      maxModelCallsPerMessage: 300,
      maxDelegationsPerMessage: 50,
    });
  });
});
