import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from './terminal.test-support.js';
import { runLegion, LEGION } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// /model, and config edits made elsewhere that apply to an open REPL: the built `legion` in a real
// terminal (tmux), its agents on the real provider SDKs talking to aimock.
if (TMUX_MISSING)
  console.warn('repl-config-cli.test.ts: tmux is not installed, so the terminal tests are skipped (apt-get install -y tmux).');

describe.skipIf(TMUX_MISSING)('the REPL takes model switches and config edits from its next message', () => {
  const workspace = useWorkspace('legion-repl-config-');
  const { mock, env } = workspace;
  let terminal: TmuxTerminal;

  beforeEach(() => {
    terminal = new TmuxTerminal(workspace.dir);
    mock.on({}, { content: 'Noted.' });
  });
  afterEach(() => terminal.kill());

  /** The model each request to the mock named, in order. */
  const requestedModels = (): unknown[] => mock.getRequests().map((entry) => (entry.body as { model?: unknown } | null)?.model);

  function launch(args: string[], extraEnv: Record<string, string> = {}): void {
    const variables = Object.entries({ ...env(), ...extraEnv }).map(([name, value]) => `${name}=${value}`);
    terminal.start(`${['env', ...variables, process.execPath, LEGION, ...args].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
  }

  async function send(text: string, reply = 'Noted.'): Promise<void> {
    const before = terminal.count(reply);
    terminal.type(text);
    await terminal.waitForCount(reply, before + 1);
  }

  const participantFile = (id: string): string => join(workspace.dir, '.legion/collective/participants', `${id}.json`);

  it('/model AGENT MODEL switches the model, says where it was saved, and the next request goes to it', async () => {
    launch([]);
    await terminal.waitFor('/help for commands');
    await send('First');
    expect(requestedModels().at(-1)).toBe('claude-sonnet-4-6');

    terminal.type('/model coordinator anthropic/claude-opus-4-5');
    await terminal.waitFor('coordinator now uses anthropic/claude-opus-4-5 (saved in .legion/collective/participants/coordinator.json)');
    expect(JSON.parse(readFileSync(participantFile('coordinator'), 'utf8')).model).toMatchObject({
      provider: 'anthropic',
      model: 'claude-opus-4-5',
    });
    await send('Second');
    expect(requestedModels().at(-1)).toBe('claude-opus-4-5');
  });

  it('/model alone shows a list to choose from: Esc keeps the model, ↓ and Enter take another', async () => {
    launch([]);
    await terminal.waitFor('/help for commands');
    terminal.type('/model');
    await terminal.waitFor('Model for coordinator (now anthropic/claude-sonnet-4-6)');
    terminal.keys('Escape');
    await terminal.waitFor('coordinator keeps anthropic/claude-sonnet-4-6.');

    // The list leaves the screen once it is answered: the second one is the one shown now.
    terminal.type('/model');
    await terminal.waitForCount('› /model', 2);
    await terminal.waitFor('Model for coordinator (now anthropic/claude-sonnet-4-6)');
    terminal.keys('Down');
    terminal.keys('Enter');
    const shown = await terminal.waitFor(/coordinator now uses anthropic\/(\S+) \(saved in/);
    const chosen = /coordinator now uses anthropic\/(\S+) \(saved in/.exec(shown)![1]!;
    expect(chosen).not.toBe('claude-sonnet-4-6');
    await send('Which model?');
    expect(requestedModels().at(-1)).toBe(chosen);
  });

  it('a `legion config set` in another process reaches the open REPL from its next message, and the REPL says so', async () => {
    launch([]);
    await terminal.waitFor('/help for commands');
    await send('Before');
    expect(requestedModels().at(-1)).toBe('claude-sonnet-4-6');

    const set = await runLegion(['config', 'set', 'defaultModel', '{"provider": "anthropic", "model": "claude-haiku-4-5"}'], {
      cwd: workspace.dir,
      env: { ...process.env, ...env() },
    });
    expect(set.status, set.stderr).toBe(0);
    await send('After');
    expect(requestedModels().at(-1)).toBe('claude-haiku-4-5');
    await terminal.waitFor('config changed, applies from this message: defaultModel.model');
  });

  it('a key stored with legion auth set in another shell reaches the open REPL: a model without a key works from the next message', async () => {
    const { OPENAI_API_KEY: _key, ...variables } = env();
    const assignments = Object.entries(variables).map(([name, value]) => `${name}=${value}`);
    terminal.start(`${['env', '-u', 'OPENAI_API_KEY', ...assignments, process.execPath, LEGION].map(shellQuote).join(' ')}`);
    await terminal.waitFor('/help for commands');
    terminal.type('/model coordinator openai/gpt-4.1');
    await terminal.waitFor('No key for openai yet: run legion auth set openai in another shell');
    terminal.type('Without a key');
    await terminal.waitFor('coordinator could not answer');
    expect(requestedModels()).toEqual([]);

    const set = await runLegion(['auth', 'set', 'openai', '--stdin'], {
      cwd: workspace.dir,
      env: { ...process.env, ...variables },
      input: 'sk-stored-0123456789abcdef\n',
    });
    expect(set.status, set.stderr).toBe(0);
    await send('With a key');
    expect(requestedModels()).toEqual(['gpt-4.1']);
    await terminal.waitFor('config changed, applies from this message: providers.openai');
  });

  it('a config edit that does not load is reported once, and the REPL keeps the last good config', async () => {
    launch([]);
    await terminal.waitFor('/help for commands');
    writeFileSync(join(workspace.dir, '.legion/config.json'), '{ "defaultModel": ');
    await send('One');
    await send('Two');
    expect(requestedModels()).toEqual(['claude-sonnet-4-6', 'claude-sonnet-4-6']);
    expect(terminal.count('the last good config stays in use')).toBe(1);
  });
});
