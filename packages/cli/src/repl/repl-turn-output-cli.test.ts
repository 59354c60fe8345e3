import { readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from './terminal.test-support.js';
import { runLegion, LEGION, type LegionRun } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

if (TMUX_MISSING)
  console.warn('repl-turn-output-cli.test.ts: tmux is not installed, so these REPL tests are skipped (apt-get install -y tmux).');

// What the REPL (the built binary in tmux) and `legion sessions show` print about turns that fail,
// break off, retry, are cancelled or are resumed from another process's approval; models on the
// real Anthropic SDK against aimock on 127.0.0.1.
describe.skipIf(TMUX_MISSING)("the REPL says once, in order and in people's words, how a turn went", () => {
  const workspace = useWorkspace('legion-turn-output-');
  const { mock, env } = workspace;
  let terminal: TmuxTerminal;

  beforeEach(() => {
    workspace.useModel('coordinator', { provider: 'anthropic', model: 'claude-output', baseURL: mock.url });
    terminal = new TmuxTerminal(workspace.dir);
  });
  afterEach(() => terminal.kill());

  const legion = (args: string[]): Promise<LegionRun> =>
    runLegion(args, { cwd: workspace.dir, env: { ...process.env, ...env() }, timeoutMs: 60_000 });

  async function startRepl(extraEnv: Record<string, string> = {}): Promise<void> {
    const variables = Object.entries({ ...env(), ...extraEnv }).map(([name, value]) => `${name}=${value}`);
    terminal.start(`${['env', ...variables, process.execPath, LEGION].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
    await terminal.waitFor('/help for commands');
  }

  /** The screen with the REPL's own line wrapping undone (it breaks long lines itself, at the terminal's width). */
  const flat = (shown: string): string => shown.replace(/\s+/g, ' ');

  const BOOM = { error: { message: 'messages.0.content: unsupported content', type: 'invalid_request_error' }, status: 400 };

  it('a failed turn is shown by its status, not the text written for its model: start banner, /history and sessions show', async () => {
    mock.on({ userMessage: 'boom now' }, BOOM);
    const failed = await legion(['run', 'boom now']);
    expect(failed.status, failed.stderr).toBe(1);
    const [session] = readdirSync(join(workspace.dir, '.legion/sessions'));

    const shown = await legion(['sessions', 'show', session!]);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('✗ failed (provider_bad_request)');
    expect(shown.stdout).not.toContain('[This turn');

    await startRepl();
    const banner = await terminal.waitFor('coordinator (user__coordinator): ✗ failed (provider_bad_request)');
    expect(banner).not.toContain('[This turn');
    terminal.type('/history');
    const history = flat(await terminal.waitFor(/› \/history\n[\s\S]*user__coordinator coordinator: ✗ failed \(provider_bad_request\)/));
    expect(history.slice(history.indexOf('› /history'))).toMatch(
      /user__coordinator coordinator: ✗ failed \(provider_bad_request\): .*refused the request \(400/,
    );
    expect(history).not.toContain('[This turn');
  }, 120_000);

  it('a failed turn says its error once; a broken stream says it below the text that came', async () => {
    mock.on({ userMessage: 'boom now' }, BOOM);
    mock.on(
      { userMessage: 'break the stream' },
      { content: 'This stream breaks off in the middle of a sentence. '.repeat(5) },
      { truncateAfterChunks: 5, chunkSize: 10, latency: 20 },
    );
    await startRepl();
    terminal.type('boom now');
    let shown = await terminal.waitFor(/coordinator could not answer: [\s\S]*\(\d/);
    expect(flat(shown).split('messages.0.content: unsupported content').length - 1).toBe(1);
    expect(shown).not.toContain('error (turn of coordinator)');

    terminal.type('break the stream');
    shown = await terminal.waitFor(/break the stream[\s\S]*could not answer: [\s\S]*\(\d/);
    const partial = shown.lastIndexOf('coordinator: This str');
    const error = shown.lastIndexOf('could not answer');
    expect(partial).toBeGreaterThan(0);
    expect(error).toBeGreaterThan(partial);
  }, 120_000);

  it('a dead endpoint is said once, with the fix', async () => {
    // The provider's endpoint on a closed port (a model server not started): nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const nowhere = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    workspace.useModel('coordinator', { provider: 'anthropic', model: 'claude-output' });
    await startRepl({ ANTHROPIC_BASE_URL: nowhere });
    terminal.type('hello there');
    const shown = flat(await terminal.waitFor(/coordinator could not answer: [\s\S]*\(\d/));
    expect(shown.split(`cannot connect to ${nowhere}`).length - 1, shown).toBe(1);
    expect(shown).toContain('Start the model server, or correct the base URL (model.baseURL or ANTHROPIC_BASE_URL).');
    expect(shown).not.toContain('retry 1 of');
  }, 120_000);

  it('a retry line says what failed and the retry, without the advice meant for after the last one', async () => {
    mock.on({ userMessage: 'flaky call' }, { error: { message: 'overloaded', type: 'overloaded_error' }, status: 529 });
    await startRepl();
    terminal.type('flaky call');
    const shown = flat(await terminal.waitFor(/coordinator could not answer: [\s\S]*\(\d/));
    expect(shown).toMatch(/coordinator's model \(anthropic\) failed: the service failed \(529: overloaded\); retry 1 of \d+ in \d/);
    // Said once: the retries after the first, for the same failure, count on the status line, not in the scrollback.
    expect(shown.match(/; retry \d+ of \d+/g), shown).toHaveLength(1);
    expect(shown).not.toContain('retries were already made');
    expect(shown).not.toContain('.;');
  }, 120_000);

  it('the cancel line counts the call it cut off, as /cost does', async () => {
    mock.on(
      { userMessage: 'write an essay' },
      { content: 'Lighthouses have guided ships for centuries. '.repeat(60) },
      { latency: 60, chunkSize: 8 },
    );
    await startRepl();
    terminal.type('write an essay');
    await terminal.waitFor('coordinator: Lighthouses have guided');
    terminal.keys('Escape');
    const shown = await terminal.waitFor(/cancelled \([^)]*\)/);
    const [, tokens] = /cancelled \([^·)]* · (\d+) tokens/.exec(shown) ?? [];
    expect(Number(tokens), shown).toBeGreaterThan(0);
    terminal.type('/cost');
    const cost = await terminal.waitFor(/› \/cost\n[\s\S]*coordinator[^\n]*\d/);
    expect(cost.slice(cost.lastIndexOf('› /cost'))).toContain(tokens!);
  }, 120_000);

  it('a turn resumed here by an approval asked in another process: its reply printed once, made inert', async () => {
    const call = {
      toolCalls: [{ id: 'toolu_paint', name: 'file_write', arguments: JSON.stringify({ path: 'paint.txt', content: 'paint\n' }) }],
    };
    mock.on({ userMessage: 'paint a file', hasToolResult: false }, call);
    mock.on(
      { userMessage: 'paint a file', hasToolResult: true },
      { content: 'Done \x1b[32m  ✓ FAKE approved line\x1b[39m \x1b[2J cleared?' },
    );
    await startRepl();
    const paused = await legion(['run', 'paint a file']);
    expect(paused.status, paused.stderr).toBe(2);
    await terminal.waitFor('1. Approve once');
    terminal.keys('1', 'Enter');
    const shown = await terminal.waitFor(/cleared\?[\s\S]*\(\d/);
    expect(shown.split('FAKE approved line').length - 1, shown).toBe(1);
    expect(shown).toContain('Done \\x1b[32m  ✓ FAKE approved line\\x1b[39m \\x1b[2J cleared?');
  }, 120_000);
});
