import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LLMock } from '@copilotkit/aimock';
import { runLegion, LEGION, type LegionRun } from './legion-process.test-support.js';
import { killTmuxServer, tmuxOn, waitForText } from './tmux.test-support.js';

// The built binary on a real terminal (tmux), with one stream redirected to a
// file: colours follow each stream's own terminal, and confirmations ask there.
const TMUX_MISSING = spawnSync('tmux', ['-V']).status !== 0;
if (TMUX_MISSING) console.warn('terminal-cli.test.ts: tmux is not installed, so these tests are skipped (apt-get install -y tmux).');

describe.skipIf(TMUX_MISSING)('legion on a terminal (tmux)', () => {
  let mock: LLMock;
  let dir: string;
  let socket: string;

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: '127.0.0.1' });
    await mock.start();
  });
  afterAll(() => mock.stop());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-terminal-'));
    socket = join(dir, 'tmux.sock');
    writeFileSync(join(dir, 'tmux.conf'), 'set -g remain-on-exit on\nset -g history-limit 5000\n');
  });
  afterEach(async () => {
    await killTmuxServer(socket, tmuxEnv());
    rmSync(dir, { recursive: true, force: true });
    mock.clearFixtures();
    mock.clearRequests();
  });

  function tmuxEnv(): NodeJS.ProcessEnv {
    const env = { ...process.env };
    delete env.TMUX;
    return env;
  }
  const tmux = (...args: string[]): string => tmuxOn(socket, join(dir, 'tmux.conf'), dir)(...args);
  /** The pane with its escape sequences (-e), so colours can be seen. */
  let pane = 0;
  const screen = (): string => tmux('capture-pane', '-p', '-e', '-J', '-S', '-', '-t', `legion${pane}`);
  const waitForScreen = (text: string): Promise<string> => waitForText(screen, text);
  /** Runs a shell command line in a new tmux pane. */
  function inTerminal(commandLine: string): void {
    // A new session (window) per command on the one server: the screen helpers read the newest.
    pane += 1;
    tmux('new-session', '-d', '-s', `legion${pane}`, '-x', '200', '-y', '50', '-c', dir, `${commandLine}; echo "[exited: $?]"`);
  }
  /** legion as a shell command, with colour variables cleared so only the terminal decides. */
  const legionLine = (args: string[]): string => {
    const variables = { XDG_CONFIG_HOME: join(dir, '.xdg'), ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: mock.url };
    const assignments = Object.entries(variables).map(([name, value]) => `${name}=${shellQuote(value)}`);
    return ['env', '-u', 'NO_COLOR', '-u', 'FORCE_COLOR', ...assignments, ...[process.execPath, LEGION, ...args].map(shellQuote)].join(' ');
  };

  function legion(args: string[]): Promise<LegionRun> {
    return runLegion(args, { cwd: dir, env: { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg') } });
  }

  async function workspaceWithWriter(): Promise<void> {
    expect((await legion(['init'])).status).toBe(0);
    const file = join(dir, '.legion/collective/participants/coordinator.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...JSON.parse(readFileSync(file, 'utf8')),
        model: { provider: 'anthropic', model: 'claude-test', baseURL: mock.url },
      }),
    );
    mock.on(
      { model: 'claude-test', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_write', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'x' }) }] },
    );
  }

  it('stderr on the terminal is coloured while stdout goes to a file, and a redirected stderr gets no escape codes', async () => {
    await workspaceWithWriter();
    // The message on a pipe: nobody to ask, so the run pauses and says so on stderr.
    inTerminal(`printf 'Write the notes' | ${legionLine(['run'])} > out.txt`);
    const shown = await waitForScreen('[exited: 2]');
    // Yellow "pending" on the terminal (tmux re-encodes the colour, as SGR 33).
    expect(shown).toMatch(/\u001b\[(?:[0-9;]*;)?33(?:;[0-9;]*)?mpending/);
    expect(shown).toContain('Paused: waiting for approval');
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('');

    inTerminal(`printf 'Write the notes' | ${legionLine(['run', '--new-session'])} 2> err.txt`);
    await waitForScreen('[exited: 2]');
    const errors = readFileSync(join(dir, 'err.txt'), 'utf8');
    expect(errors).toContain('Paused: waiting for approval');
    expect(errors).toMatch(/pending +coordinator → file_write/);
    expect(errors).not.toContain('\u001b');
  }, 60_000);

  it('with stderr redirected, run does not ask on a terminal nobody sees: it pauses, and says so in the file', async () => {
    await workspaceWithWriter();
    inTerminal(`${legionLine(['run', 'Write the notes'])} 2> err.txt`);
    const shown = await waitForScreen('[exited:');
    expect(shown).toContain('[exited: 2]');
    // After the one note that the test model's window is a guess, the pause is the first thing said.
    expect(readFileSync(join(dir, 'err.txt'), 'utf8')).toMatch(/^(?:note: [^\n]*\n)?Paused: waiting for approval/);
  }, 60_000);

  it('sessions rm asks on the terminal: "n" keeps the session, "y" deletes it', async () => {
    expect((await legion(['init'])).status).toBe(0);
    writeFileSync(
      join(dir, '.legion/collective/participants/oracle.json'),
      JSON.stringify({ id: 'oracle', type: 'mock', name: 'Oracle', responses: [{ trigger: '*', response: 'ok' }] }),
    );
    const run = await legion(['run', '--to', 'oracle', '--output', 'json', 'ping']);
    const id = (JSON.parse(run.stdout) as { sessionId: string }).sessionId;

    inTerminal(legionLine(['sessions', 'rm', id]));
    await waitForScreen(`Delete session ${id} (ping) and its 1 conversation? [y/N]`);
    tmux('send-keys', '-t', `legion${pane}`, 'n', 'Enter');
    const kept = await waitForScreen('[exited:');
    expect(kept).toContain('Kept it.');
    expect(kept).toContain('[exited: 1]');
    expect(existsSync(join(dir, '.legion/sessions', id))).toBe(true);

    inTerminal(legionLine(['sessions', 'rm', id]));
    await waitForScreen('[y/N]');
    tmux('send-keys', '-t', `legion${pane}`, 'y', 'Enter');
    const removed = await waitForScreen('[exited:');
    expect(removed).toContain(`Removed session ${id}.`);
    expect(removed).toContain('[exited: 0]');
    expect(existsSync(join(dir, '.legion/sessions', id))).toBe(false);
  }, 60_000);
});

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
