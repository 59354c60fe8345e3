import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killTmuxServer, tmuxOn, waitForText } from '../tmux.test-support.js';

// `legion agents edit` and `rm` on a real terminal (tmux): the questions they ask only there.
const LEGION = fileURLToPath(new URL('../../dist/legion.js', import.meta.url));
const EDITOR = fileURLToPath(new URL('../__fixtures__/scripted-editor.mjs', import.meta.url));
const TMUX_MISSING = spawnSync('tmux', ['-V']).status !== 0;
if (TMUX_MISSING)
  console.warn('agents-terminal-cli.test.ts: tmux is not installed, so these terminal tests are skipped (apt-get install -y tmux).');

let dir: string;
let socket: string;
const tmuxEnv = { ...process.env };
delete tmuxEnv.TMUX;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'legion-agents-tty-'));
  socket = join(dir, 'tmux.sock');
  // The pane stays after legion exits, so its last screen can still be read.
  writeFileSync(join(dir, 'tmux.conf'), 'set -g remain-on-exit on\nset -g history-limit 5000\n');
  const init = spawnSync(process.execPath, [LEGION, 'init'], { cwd: dir, env: { ...process.env, XDG_CONFIG_HOME: join(dir, '.xdg') } });
  expect(init.status).toBe(0);
});
afterEach(async () => {
  await killTmuxServer(socket, tmuxEnv);
  rmSync(dir, { recursive: true, force: true });
});

function tmux(...args: string[]): string {
  return tmuxOn(socket, join(dir, 'tmux.conf'), dir)(...args);
}

/** Starts `legion ARGS` in a terminal of its own. */
function start(args: string[], env: Record<string, string>): void {
  const variables = Object.entries({ NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg'), ...env }).map(
    ([name, value]) => `${name}=${value}`,
  );
  const command = `${['env', ...variables, process.execPath, LEGION, ...args].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`;
  tmux('new-session', '-d', '-s', 'legion', '-x', '200', '-y', '50', '-c', dir, command);
}

function waitForScreen(text: string): Promise<string> {
  return waitForText(() => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'legion'), text);
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

const participantFile = (id: string): string => join(dir, '.legion/collective/participants', `${id}.json`);

describe.skipIf(TMUX_MISSING)('legion agents on a terminal', () => {
  it('edit shows what is wrong and re-opens the editor on the same edit; "keep" leaves the file and keeps the edit', async () => {
    const edits = join(dir, 'edits.json');
    writeFileSync(
      edits,
      JSON.stringify([{ set: { tools: 42, description: 'typed by hand' } }, { set: { tools: ['file_*'] } }, { set: { delegation: 7 } }]),
    );
    start(['agents', 'edit', 'developer'], { EDITOR: `${process.execPath} ${EDITOR}`, VISUAL: '', LEGION_TEST_EDITS: edits });
    const question = await waitForScreen('(e)dit again, or (k)eep the old file?');
    expect(question).toContain('developer.json (field "tools"): expected "all", "none" or an array, got the number 42');
    tmux('send-keys', '-t', 'legion', 'e', 'Enter');
    const saved = await waitForScreen('[legion exited:');
    expect(saved).toContain('✔ Saved .legion/collective/participants/developer.json.');
    expect(saved).toContain('[legion exited: 0]');
    // The second opening started from the first edit: the description typed then is kept.
    expect(JSON.parse(readFileSync(participantFile('developer'), 'utf8'))).toMatchObject({
      tools: ['file_*'],
      description: 'typed by hand',
    });
    expect(readFileSync(`${edits}.runs`, 'utf8')).toBe('2');

    tmux('kill-server');
    const before = readFileSync(participantFile('reviewer'), 'utf8');
    start(['agents', 'edit', 'reviewer'], { EDITOR: `${process.execPath} ${EDITOR}`, VISUAL: '', LEGION_TEST_EDITS: edits });
    await waitForScreen('(e)dit again, or (k)eep the old file?');
    tmux('send-keys', '-t', 'legion', 'k', 'Enter');
    const kept = await waitForScreen('[legion exited:');
    expect(kept).toContain('[legion exited: 1]');
    expect(kept).toContain('Your edit is kept in .legion/run/edits/reviewer.json');
    expect(readFileSync(participantFile('reviewer'), 'utf8')).toBe(before);
    expect(JSON.parse(readFileSync(join(dir, '.legion/run/edits/reviewer.json'), 'utf8'))).toMatchObject({ delegation: 7 });
  }, 60_000);

  it('rm asks before removing, and "no" removes nothing', async () => {
    start(['agents', 'rm', 'coordinator', '--force'], {});
    const question = await waitForScreen('[y/N]');
    expect(question).toContain('Remove .legion/collective/participants/coordinator.json');
    expect(question).toContain('entry agent');
    tmux('send-keys', '-t', 'legion', 'n', 'Enter');
    expect(await waitForScreen('[legion exited:')).toContain('[legion exited: 1]');
    expect(existsSync(participantFile('coordinator'))).toBe(true);

    tmux('kill-server');
    start(['agents', 'rm', 'coordinator', '--force'], {});
    await waitForScreen('[y/N]');
    tmux('send-keys', '-t', 'legion', 'y', 'Enter');
    expect(await waitForScreen('[legion exited:')).toContain('[legion exited: 0]');
    expect(existsSync(participantFile('coordinator'))).toBe(false);
  }, 60_000);
});
