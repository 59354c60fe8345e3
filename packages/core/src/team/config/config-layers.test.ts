import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../kernel/errors.js';
import { inspectConfigLayers, resolveConfigLayers, saveConfigLayer } from './config-layers.js';
import { loadConfig } from './load-config.js';
import { secretsInConfig } from './config-secrets.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'legion-config-layers-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('config layers one by one', () => {
  it('writes the global config (the place for keys) readable only by its owner, in a directory only its owner may enter', () => {
    const globalFile = join(dir, 'legion', 'config.json');
    saveConfigLayer({ source: 'global', file: globalFile }, { providers: { openai: { apiKey: 'sk-test-0123456789' } } });
    expect(statSync(globalFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'legion')).mode & 0o777).toBe(0o700);
    // A file written before with wider permissions is replaced by one that has them no longer.
    writeFileSync(globalFile, '{}', { mode: 0o644 });
    saveConfigLayer({ source: 'global', file: globalFile }, { providers: { openai: { apiKey: 'sk-test-0123456789' } } });
    expect(statSync(globalFile).mode & 0o777).toBe(0o600);
  });

  it('reports each file on its own: absent, valid, or broken with its field and fix', () => {
    const globalFile = join(dir, 'global.json');
    const workspaceFile = join(dir, 'workspace.json');
    expect(inspectConfigLayers({ globalConfigFile: globalFile, workspaceConfigFile: workspaceFile })).toEqual([
      { source: 'global', file: globalFile, exists: false },
      { source: 'workspace', file: workspaceFile, exists: false },
    ]);
    writeFileSync(globalFile, JSON.stringify({ limits: { maxDepth: 'deep' } }));
    writeFileSync(workspaceFile, JSON.stringify({ entryAgent: 'developer', providers: { openai: { apiKey: 'sk-test' } } }));
    const [global, workspace] = inspectConfigLayers({ globalConfigFile: globalFile, workspaceConfigFile: workspaceFile });
    expect(global?.error).toBeInstanceOf(ConfigError);
    expect(global?.error?.field).toBe('limits.maxDepth');
    expect(workspace?.error?.field).toBe('providers.openai.apiKey');
    writeFileSync(globalFile, JSON.stringify({ limits: { maxDepth: 9 } }));
    writeFileSync(workspaceFile, JSON.stringify({ entryAgent: 'developer' }));
    const layers = inspectConfigLayers({ globalConfigFile: globalFile, workspaceConfigFile: workspaceFile }).flatMap((report) =>
      report.layer ? [report.layer] : [],
    );
    expect(resolveConfigLayers(layers)).toEqual(loadConfig({ globalConfigFile: globalFile, workspaceConfigFile: workspaceFile }).config);
  });

  it('writes a workspace layer only without secrets, and what it writes always loads', () => {
    const file = join(dir, 'config.json');
    writeFileSync(file, '{"entryAgent": "developer"}');
    const target = { source: 'workspace' as const, file };
    for (const layer of [
      { providers: { openai: { apiKey: 'sk-test' } } },
      { providers: { openai: { apiKey: '${env:OPENAI_API_KEY}' } } },
      { mcpServers: { github: { command: 'gh', env: { GITHUB_TOKEN: 'ghp_secret' } } } },
      { mcpServers: { api: { url: 'https://api.example', headers: { Authorization: 'Bearer abc' } } } },
      { limits: { maxDepth: -1 } },
    ]) {
      expect(() => saveConfigLayer(target, layer, { globalConfigFile: join(dir, 'global.json') }), JSON.stringify(layer)).toThrow(
        ConfigError,
      );
      expect(readFileSync(file, 'utf8')).toBe('{"entryAgent": "developer"}');
    }
    saveConfigLayer(target, { mcpServers: { github: { command: 'gh', env: { GITHUB_TOKEN: '${env:GITHUB_TOKEN}' } } } });
    expect(loadConfig({ workspaceConfigFile: file, globalConfigFile: join(dir, 'global.json') }).config.mcpServers.github?.env).toEqual({
      GITHUB_TOKEN: '${env:GITHUB_TOKEN}',
    });
    saveConfigLayer({ source: 'global', file: join(dir, 'global.json') }, { providers: { openai: { apiKey: 'sk-test' } } });
    expect(JSON.parse(readFileSync(join(dir, 'global.json'), 'utf8'))).toEqual({ providers: { openai: { apiKey: 'sk-test' } } });
  });

  it('finds secrets by field name, not in names of tools or models', () => {
    expect(
      secretsInConfig({
        providers: { a: { apiKey: 'x', apiKeyEnv: 'A_KEY' } },
        policies: { read_secret: 'deny' },
        pricing: { 'token-model': { input: 1, output: 1 } },
      }),
    ).toEqual(['providers.a.apiKey']);
  });
});
