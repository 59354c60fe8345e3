import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from '../repl/terminal.test-support.js';
import { runLegion, LEGION } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// Models and keys without editing JSON: `legion models`, `legion auth`, and `legion init`'s offer of
// a key, the built `legion` in a real terminal (tmux) where a prompt is involved.
if (TMUX_MISSING) console.warn('auth-cli.test.ts: tmux is not installed, so the terminal tests are skipped (apt-get install -y tmux).');

describe.skipIf(TMUX_MISSING)('models and keys without editing JSON', () => {
  const workspace = useWorkspace('legion-auth-');
  const { env } = workspace;
  let terminal: TmuxTerminal;

  beforeEach(() => {
    terminal = new TmuxTerminal(workspace.dir);
  });
  afterEach(() => terminal.kill());

  function launch(args: string[], extraEnv: Record<string, string> = {}): void {
    const variables = Object.entries({ ...env(), ...extraEnv }).map(([name, value]) => `${name}=${value}`);
    terminal.start(`${['env', ...variables, process.execPath, LEGION, ...args].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
  }

  it('legion auth set takes the key at a prompt that shows nothing, and writes it to the global config, readable only by its owner', async () => {
    const key = 'sk-typed-0123456789abcdef';
    launch(['auth', 'set', 'openai']);
    await terminal.waitFor('API key for openai (not shown):');
    terminal.type(key);
    await terminal.waitFor('[legion exited: 0]');
    const shown = terminal.screen();
    expect(shown).toContain('Saved the key for openai (sk-t…cdef)');
    expect(shown).not.toContain(key);
    const file = join(workspace.dir, '.xdg/legion/config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ providers: { openai: { apiKey: key } } });
  });

  it('legion init offers to set a key when none is found, on a terminal; the key typed is not shown', async () => {
    const key = 'sk-ant-typed-0123456789abcdef';
    const { ANTHROPIC_API_KEY: _key, ...variables } = env();
    const assignments = Object.entries(variables).map(([name, value]) => `${name}=${value}`);
    terminal.start(
      `${['env', '-u', 'ANTHROPIC_API_KEY', ...assignments, process.execPath, LEGION, 'init', 'fresh'].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`,
    );
    await terminal.waitFor('Set the anthropic key now?');
    terminal.keys('Enter');
    await terminal.waitFor('API key for anthropic (not shown):');
    terminal.type(key);
    await terminal.waitFor('[legion exited: 0]');
    expect(terminal.screen()).not.toContain(key);
    expect(JSON.parse(readFileSync(join(workspace.dir, '.xdg/legion/config.json'), 'utf8'))).toEqual({
      providers: { anthropic: { apiKey: key } },
    });
  });

  it('legion init without a terminal only says how to set a key: a script is never asked', async () => {
    const { ANTHROPIC_API_KEY: _key, ...withoutKey } = { ...process.env, ...env() };
    const init = await runLegion(['init', 'scripted'], { cwd: workspace.dir, env: withoutKey });
    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).toContain('No key for anthropic was found');
    expect(init.stdout).toContain('Set one with: legion auth set anthropic');
    expect(init.stdout + init.stderr).not.toContain('Set the anthropic key now?');
  });

  it('legion models lists providers with where their keys come from, and models with windows and prices', async () => {
    const { ANTHROPIC_API_KEY: _key, ...withoutAnthropic } = { ...process.env, ...env() };
    const listed = await runLegion(['models', '--json'], { cwd: workspace.dir, env: withoutAnthropic });
    expect(listed.status, listed.stderr).toBe(0);
    const catalogue = JSON.parse(listed.stdout) as {
      providers: Array<{ name: string; key: { from: string; variable?: string } }>;
      models: Array<{ provider: string; model: string; window: number; price: { input: number } | null; usedBy: string[]; keyed: boolean }>;
    };
    expect(catalogue.providers.find((provider) => provider.name === 'openai')?.key).toEqual({
      from: 'environment',
      variable: 'OPENAI_API_KEY',
    });
    expect(catalogue.providers.find((provider) => provider.name === 'anthropic')?.key).toEqual({ from: 'missing' });
    expect(catalogue.models.find((model) => model.model === 'claude-sonnet-4-6')).toMatchObject({
      provider: 'anthropic',
      window: 1_000_000,
      price: { input: 3 },
      usedBy: ['defaultModel', 'coordinator', 'developer', 'reviewer'],
      keyed: false,
    });
    expect(catalogue.models.find((model) => model.model === 'gpt-4.1')).toMatchObject({ provider: 'openai', keyed: true });
  });
});
