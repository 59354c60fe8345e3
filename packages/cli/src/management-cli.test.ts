import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLegion } from './legion-process.test-support.js';

// `legion agents`, `legion config` and `legion tools` through the built binary, as a person uses them.
const EDITOR = fileURLToPath(new URL('./__fixtures__/scripted-editor.mjs', import.meta.url));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function legion(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return runLegion(args, { cwd: dir, env: { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg'), ...env } });
}

let dir: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'legion-manage-'));
  expect((await legion(['init'])).status).toBe(0);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const participantFile = (id: string): string => join(dir, '.legion/collective/participants', `${id}.json`);
const read = (path: string): string => readFileSync(path, 'utf8');

/** Runs `legion agents edit ID` with an editor that makes these edits, one per time it is opened. */
function editWith(id: string, edits: unknown[]): Promise<Run> {
  const list = join(dir, `edits-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(list, JSON.stringify(edits));
  return legion(['agents', 'edit', id], { EDITOR: `"${process.execPath}" "${EDITOR}"`, VISUAL: '', LEGION_TEST_EDITS: list });
}

describe('legion agents', () => {
  it('lists every participant with its model, tools and whom it talks to, and reports a broken file without hiding the rest', async () => {
    const text = await legion(['agents', 'list']);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^ID\s+TYPE\s+MODEL\s+TOOLS\s+TALKS TO\s+DESCRIPTION$/m);
    expect(text.stdout).toMatch(/^developer\s+agent\s+anthropic\/claude-sonnet-4-6\s+all\s+reviewer, user\s+Writes and changes code/m);
    writeFileSync(participantFile('reviewer'), '{ "id": "reviewer", ');
    const json = await legion(['agents', 'list', '--json']);
    expect(json.status).toBe(0);
    const listed = JSON.parse(json.stdout) as { participants: Array<{ id: string }>; problems: string[] };
    expect(listed.participants.map((participant) => participant.id)).toEqual(['coordinator', 'developer', 'user']);
    expect(json.stderr).toMatch(/warning: .*reviewer\.json.*not valid JSON/);
  });

  it('adds an agent from flags or a template, validated, and never replaces an existing one', async () => {
    const added = await legion([
      'agents',
      'add',
      'tester',
      '--description',
      'Writes tests',
      '--system-prompt',
      'You write tests.',
      '--provider',
      'openai',
      '--model',
      'gpt-4.1',
      '--tools',
      'file_*, shell_run',
      '--delegation',
      'developer,user',
    ]);
    expect(added.status, added.stderr).toBe(0);
    expect(JSON.parse(read(participantFile('tester')))).toMatchObject({
      id: 'tester',
      type: 'agent',
      name: 'tester',
      description: 'Writes tests',
      model: { provider: 'openai', model: 'gpt-4.1' },
      tools: ['file_*', 'shell_run'],
      delegation: ['developer', 'user'],
    });
    const fromTemplate = await legion(['agents', 'add', 'scout', '--template', 'researcher', '--name', 'Scout']);
    expect(fromTemplate.status, fromTemplate.stderr).toBe(0);
    expect(JSON.parse(read(participantFile('scout')))).toMatchObject({
      id: 'scout',
      name: 'Scout',
      systemPrompt: expect.stringContaining('research'),
      delegation: ['user'],
    });
    expect((await legion(['agents', 'show', 'scout'])).stdout).toMatch(
      /^model\s+anthropic\/claude-sonnet-4-6 \(defaultModel from the config\)$/m,
    );

    const before = read(participantFile('developer'));
    const again = await legion(['agents', 'add', 'developer', '--system-prompt', 'Replaced!']);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/developer\.json already exists/);
    expect(read(participantFile('developer'))).toBe(before);

    const badPermission = await legion([
      'agents',
      'add',
      'odd',
      '--system-prompt',
      'x',
      '--provider',
      'openai',
      '--model',
      'gpt-4.1',
      '--base-url',
      'not a url',
    ]);
    expect(badPermission.status).toBe(1);
    expect(badPermission.stderr).toMatch(/odd\.json \(field "model\.baseURL"\)/);
    for (const id of ['../escape', 'a__b']) {
      const refused = await legion(['agents', 'add', id, '--system-prompt', 'x']);
      expect(refused.status, id).toBe(1);
      expect(refused.stderr, id).toMatch(/not a participant id/);
    }
    const noPrompt = await legion(['agents', 'add', 'empty']);
    expect(noPrompt.stderr).toMatch(/--system-prompt.*--template NAME \(researcher\)/);
    expect(readdirSync(join(dir, '.legion/collective/participants')).sort()).toEqual([
      'coordinator.json',
      'developer.json',
      'reviewer.json',
      'scout.json',
      'tester.json',
      'user.json',
    ]);
    expect(existsSync(join(dir, 'escape.json'))).toBe(false);
  });

  it('edit saves what validates, and keeps a broken edit aside (the file untouched) until it is fixed', async () => {
    const original = read(participantFile('reviewer'));
    const broken = await editWith('reviewer', [{ set: { tools: 42 } }]);
    expect(broken.status).toBe(1);
    expect(broken.stderr).toMatch(/reviewer\.json \(field "tools"\): expected "all", "none" or an array, got the number 42\. Fix: /);
    expect(broken.stderr).toContain('.legion/run/edits/reviewer.json');
    expect(read(participantFile('reviewer'))).toBe(original);
    expect(JSON.parse(read(join(dir, '.legion/run/edits/reviewer.json')))).toMatchObject({ tools: 42 });
    // The next edit starts from the kept one: what was typed is not lost.
    const fixed = await editWith('reviewer', [{ set: { tools: ['file_*'], description: 'Reviews, reading only.' } }]);
    expect(fixed.status, fixed.stderr).toBe(0);
    expect(fixed.stderr).toContain('Continuing your unsaved edit');
    expect(JSON.parse(read(participantFile('reviewer')))).toMatchObject({
      id: 'reviewer',
      tools: ['file_*'],
      description: 'Reviews, reading only.',
    });
    expect(existsSync(join(dir, '.legion/run/edits/reviewer.json'))).toBe(false);

    const syntax = await editWith('developer', [{ text: '{ "id": "developer", ' }]);
    expect(syntax.stderr).toMatch(/developer\.json: is not valid JSON/);
    const renamed = await editWith('coordinator', [{ set: { id: 'boss' } }]);
    expect(renamed.stderr).toMatch(/coordinator\.json \(field "id"\): id "boss" does not match the file name/);
    expect((await legion(['agents', 'list', '--json'])).stderr).toBe('');
  });

  it('rm refuses the last user and an agent others delegate to unless --force, and removes otherwise', async () => {
    const user = await legion(['agents', 'rm', 'user']);
    expect(user.status).toBe(1);
    expect(user.stderr).toMatch(/only user/);
    const reviewer = await legion(['agents', 'rm', 'reviewer']);
    expect(reviewer.status).toBe(1);
    expect(reviewer.stderr).toMatch(/"developer" delegates to "reviewer".*--force/);
    expect(existsSync(participantFile('reviewer'))).toBe(true);
    expect(existsSync(participantFile('user'))).toBe(true);

    const forced = await legion(['agents', 'rm', 'reviewer', '--force']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(existsSync(participantFile('reviewer'))).toBe(false);
    expect((await legion(['agents', 'add', 'helper', '--system-prompt', 'x'])).status).toBe(0);
    expect((await legion(['agents', 'rm', 'helper'])).status).toBe(0);
    expect(existsSync(participantFile('helper'))).toBe(false);
    expect((await legion(['agents', 'rm', 'nobody'])).stderr).toMatch(/No participant "nobody"/);
  });
});

describe('legion config', () => {
  const workspaceConfig = (): string => join(dir, '.legion/config.json');

  it('set refuses an API key in the workspace config, naming the global file, and changes nothing', async () => {
    const before = read(workspaceConfig());
    const refused = await legion(['config', 'set', 'providers.openai.apiKey', 'sk-test-0123456789abcdefghij']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(join(dir, '.xdg/legion/config.json'));
    expect(refused.stderr).toMatch(/not allowed in the workspace config/);
    const token = await legion([
      'config',
      'set',
      'mcpServers.github',
      '{"command": "gh-mcp", "env": {"GITHUB_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyz"}}',
    ]);
    expect(token.status).toBe(1);
    expect(token.stderr).toMatch(/field "mcpServers\.github\.env\.GITHUB_TOKEN".*--global.*\$\{env:NAME\}/s);
    expect(read(workspaceConfig())).toBe(before);
    expect(read(workspaceConfig())).not.toContain('sk-test');

    const global = await legion(['config', 'set', 'providers.openai.apiKey', 'sk-test-0123456789abcdefghij', '--global']);
    expect(global.status, global.stderr).toBe(0);
    expect(JSON.parse(read(join(dir, '.xdg/legion/config.json')))).toEqual({
      providers: { openai: { apiKey: 'sk-test-0123456789abcdefghij' } },
    });
    const shown = await legion(['config', 'show', '--layers']);
    expect(shown.stdout).toMatch(/^providers\.openai\.apiKey\s+\[secret\]\s+\.xdg\/legion\/config\.json$/m);
    expect(shown.stdout).not.toContain('sk-test');
  });

  it('set validates against the config schema before writing; show --layers names where each value comes from', async () => {
    const before = read(workspaceConfig());
    const wrong = await legion(['config', 'set', 'limits.maxDepth', 'deep']);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/config\.json \(field "limits\.maxDepth"\): expected a number, got the string "deep"/);
    expect((await legion(['config', 'set', 'limitz.maxDepth', '3'])).stderr).toMatch(/"limitz"/);
    expect(read(workspaceConfig())).toBe(before);

    expect((await legion(['config', 'set', 'limits.maxDepth', '8'])).status).toBe(0);
    expect((await legion(['config', 'set', 'pricing["my-model.1"]', '{"input": 0, "output": 1}'])).status).toBe(0);
    expect(JSON.parse(read(workspaceConfig()))).toMatchObject({
      entryAgent: 'coordinator',
      limits: { maxDepth: 8 },
      pricing: { 'my-model.1': { input: 0, output: 1 } },
    });
    expect((await legion(['config', 'get', 'limits.maxDepth'])).stdout).toBe('8\n');
    expect((await legion(['config', 'get', 'pricing["my-model.1"].output'])).stdout).toBe('1\n');

    writeFileSync(
      participantFile('developer'),
      JSON.stringify({ ...JSON.parse(read(participantFile('developer'))), limits: { maxIterations: 7 } }),
    );
    const layers = await legion(['config', 'show', '--layers', '--agent', 'developer']);
    expect(layers.status, layers.stderr).toBe(0);
    expect(layers.stdout).toMatch(/^limits\.maxDepth\s+8\s+\.legion\/config\.json$/m);
    expect(layers.stdout).toMatch(/^limits\.maxIterations\s+7\s+\.legion\/collective\/participants\/developer\.json$/m);
    expect(layers.stdout).toMatch(/^limits\.toolTimeoutMs\s+120000\s+defaults$/m);
    expect(layers.stdout).toMatch(/^entryAgent\s+coordinator\s+\.legion\/config\.json$/m);
  });
});

describe('legion tools list', () => {
  it("shows what an agent's model sees and why the rest is hidden: its tools permission, a failed MCP server; and a denied tool", async () => {
    const developer = JSON.parse(read(participantFile('developer'))) as Record<string, unknown>;
    writeFileSync(
      participantFile('developer'),
      JSON.stringify({ ...developer, tools: ['file_*', 'mcp__*'], policies: { file_delete: 'deny' } }),
    );
    const config = JSON.parse(read(join(dir, '.legion/config.json'))) as Record<string, unknown>;
    writeFileSync(
      join(dir, '.legion/config.json'),
      JSON.stringify({
        ...config,
        mcpServers: { flaky: { command: process.execPath, args: ['-e', 'console.error("no credentials"); process.exit(1)'] } },
      }),
    );
    mkdirSync(join(dir, '.legion/tools'), { recursive: true });

    const json = await legion(['tools', 'list', '--agent', 'developer', '--json']);
    expect(json.status, json.stderr).toBe(0);
    const [view] = (
      JSON.parse(json.stdout) as {
        agents: Array<{ agent: string; tools: Array<Record<string, unknown>>; missing: Array<Record<string, unknown>> }>;
      }
    ).agents;
    const tool = (name: string) => view!.tools.find((entry) => entry.name === name);
    expect(tool('file_read')).toMatchObject({ visible: true, source: 'builtin', approval: { mode: 'auto', source: 'default' } });
    expect(tool('file_write')).toMatchObject({ visible: true, approval: { mode: 'requires_approval' } });
    expect(tool('file_delete')).toMatchObject({ visible: true, approval: { mode: 'deny', source: 'participant developer "file_delete"' } });
    expect(tool('shell_run')).toMatchObject({ visible: false, hiddenBecause: 'not in its "tools" (["file_*","mcp__*"])' });
    expect(tool('communicate')).toMatchObject({ visible: false });
    expect(tool('artifact_read')).toMatchObject({
      visible: false,
      source: 'builtin',
      hiddenBecause: 'not in its "tools" (["file_*","mcp__*"])',
    });
    expect(view!.missing).toEqual([{ pattern: 'mcp__flaky__*', source: 'mcp', reason: expect.stringContaining('no credentials') }]);

    const text = await legion(['tools', 'list', '--agent', 'developer']);
    expect(text.stdout).toMatch(/^ {2}file_delete\s+builtin\s+denied — every call refused/m);
    expect(text.stdout).toMatch(/^ {2}shell_run\s+builtin\s+not in its "tools"/m);
    expect(text.stdout).toMatch(/^ {2}mcp__flaky__\*\s+mcp\s+MCP server "flaky" failed: .*no credentials/m);
    const user = await legion(['tools', 'list', '--agent', 'user']);
    expect(user.stderr).toMatch(/"user" is a user, not an agent/);
  });
});
