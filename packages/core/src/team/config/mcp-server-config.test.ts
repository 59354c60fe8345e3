import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadConfig } from './load-config.js';
import { ConfigError } from '../../kernel/errors.js';

let dir: string;
let globalFile: string;
let workspaceFile: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'legion-mcp-config-'));
  globalFile = join(dir, 'xdg', 'legion', 'config.json');
  workspaceFile = join(dir, 'project', '.legion', 'config.json');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}

function loadError(): ConfigError {
  try {
    loadConfig({ workspaceConfigFile: workspaceFile, globalConfigFile: globalFile });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected loadConfig to fail');
}

describe('mcpServers in the layered config', () => {
  it('is empty by default, and a workspace server replaces a global one of the same name whole', () => {
    expect(loadConfig({ workspaceConfigFile: workspaceFile, globalConfigFile: globalFile }).config.mcpServers).toEqual({});
    write(globalFile, {
      mcpServers: {
        github: { command: 'github-mcp', args: ['stdio'], env: { GITHUB_TOKEN: '${env:GITHUB_TOKEN}' } },
        memory: { command: 'memory-mcp' },
      },
    });
    write(workspaceFile, {
      mcpServers: {
        github: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${env:GH}' } },
        docs: { url: 'http://127.0.0.1:3001/mcp' },
      },
    });
    expect(loadConfig({ workspaceConfigFile: workspaceFile, globalConfigFile: globalFile }).config.mcpServers).toEqual({
      github: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${env:GH}' } },
      memory: { command: 'memory-mcp' },
      docs: { url: 'http://127.0.0.1:3001/mcp' },
    });
  });

  it('names the file, the field and the fix for a server that is neither stdio nor http', () => {
    write(workspaceFile, { mcpServers: { github: { args: ['stdio'] } } });
    const error = loadError();
    expect(error.file).toBe(workspaceFile);
    expect(error.field).toBe('mcpServers.github.command');
    expect(error.message).toContain('expected "command" (a server started over stdio) or "url" (a Streamable HTTP server)');
  });

  it('refuses stdio fields on a URL server and a server name that would break tool names', () => {
    write(workspaceFile, { mcpServers: { remote: { url: 'https://mcp.example.com/mcp', env: { A: 'b' } } } });
    expect(loadError()).toMatchObject({
      field: 'mcpServers.remote.env',
      message: expect.stringContaining('applies only to stdio servers'),
    });
    write(workspaceFile, { mcpServers: { my__server: { command: 'x' } } });
    expect(loadError().message).toContain('expected a server name of letters and digits');
    write(workspaceFile, { mcpServers: { s: { url: 'localhost:3001' } } });
    expect(loadError()).toMatchObject({ field: 'mcpServers.s.url' });
    write(workspaceFile, { mcpServers: { s: { command: 'x', transport: 'stdio' } } });
    expect(loadError()).toMatchObject({ field: 'mcpServers.s.transport', message: expect.stringContaining('is not a known field') });
  });
});
