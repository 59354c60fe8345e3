import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Legion } from '../Legion.js';
import { commandEnvironment, withheldVariables } from './child-env.js';

const ANTHROPIC_KEY = 'sk-ant-test-0123456789abcdefghijklmnop';
const CONFIGURED_KEY = 'configured-openai-key-0123456789';

describe('withheldVariables', () => {
  const env = {
    PATH: '/usr/bin',
    HOME: '/home/me',
    ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    OPENAI_API_KEY: 'sk-openai-from-env-0123456789',
    OPENROUTER_API_KEY: 'or-key-0123456789',
    LEGION_API_TOKEN: 'legion-token-0123456789',
    LEGION_DEBUG: '1',
    DEPLOY_SECRET_COPY: CONFIGURED_KEY,
    GITHUB_TOKEN: 'ghp_for-the-user-s-own-git-pushes',
  };

  it("names every provider key variable, LEGION_* secrets and any variable holding a configured key, and nothing of the user's own", () => {
    expect(withheldVariables(env, { secretValues: [CONFIGURED_KEY] })).toEqual([
      'ANTHROPIC_API_KEY',
      'DEPLOY_SECRET_COPY',
      'LEGION_API_TOKEN',
      'OPENAI_API_KEY',
      'OPENROUTER_API_KEY',
    ]);
  });

  it('passes what shell.passEnv lists', () => {
    const result = commandEnvironment(env, { passEnv: ['OPENAI_API_KEY'], secretValues: [CONFIGURED_KEY] });
    expect(Object.keys(result).sort()).toEqual(['GITHUB_TOKEN', 'HOME', 'LEGION_DEBUG', 'OPENAI_API_KEY', 'PATH']);
  });
});

describe("commands' environment", () => {
  let root: string;
  let legion: Legion | undefined;
  const env = { PATH: process.env.PATH, ANTHROPIC_API_KEY: ANTHROPIC_KEY, COPY_OF_KEY: CONFIGURED_KEY, PLAIN: 'plain-value' };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-child-env-'));
    writeFileSync(join(root, 'global.json'), JSON.stringify({ providers: { openai: { apiKey: CONFIGURED_KEY } } }));
    mkdirSync(join(root, '.legion', 'tools'), { recursive: true });
    // A declarative shell tool, so all three ways of running a command are checked.
    writeFileSync(
      join(root, '.legion', 'tools', 'print_env.json'),
      JSON.stringify({
        name: 'print_env',
        description: 'writes its environment',
        execution: { type: 'shell', command: ['sh', '-c', 'env > seen-declarative.txt'] },
      }),
    );
  });

  afterEach(async () => {
    await legion?.close();
    legion = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  async function seenBy(passEnv?: string[]): Promise<Record<'shell' | 'process' | 'declarative', string>> {
    if (passEnv) writeFileSync(join(root, '.legion', 'config.json'), JSON.stringify({ shell: { passEnv } }));
    legion = Legion.create({ root, globalConfigFile: join(root, 'global.json'), env });
    expect(await legion.executeTool('shell_run', { command: 'env > seen-shell.txt' })).toMatchObject({ status: 'success' });
    const started = await legion.executeTool('process_start', { command: 'env > seen-process.txt' });
    expect(started).toMatchObject({ status: 'success' });
    const id = /proc-\d+/.exec((started as { content: string }).content)![0];
    expect(await legion.executeTool('process_poll', { id, wait_ms: 5000 })).toMatchObject({ status: 'success' });
    expect(await legion.executeTool('print_env', {})).toMatchObject({ status: 'success' });
    const read = (name: string): string => readFileSync(join(root, `seen-${name}.txt`), 'utf8');
    return { shell: read('shell'), process: read('process'), declarative: read('declarative') };
  }

  it("do not hold Legion's provider keys, nor a variable holding a key from the global config", async () => {
    for (const seen of Object.values(await seenBy())) {
      expect(seen).toContain('PLAIN=plain-value');
      expect(seen).not.toContain('ANTHROPIC_API_KEY');
      expect(seen).not.toContain(ANTHROPIC_KEY);
      expect(seen).not.toContain(CONFIGURED_KEY);
    }
  });

  it('hold the variables shell.passEnv lists', async () => {
    for (const seen of Object.values(await seenBy(['ANTHROPIC_API_KEY']))) {
      expect(seen).toContain(`ANTHROPIC_API_KEY=${ANTHROPIC_KEY}`);
      expect(seen).not.toContain(CONFIGURED_KEY);
    }
  });
});
