import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runLegion, LEGION, type LegionRun } from '../legion-process.test-support.js';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from '../repl/terminal.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

if (TMUX_MISSING)
  console.warn('run-progress-cli.test.ts: tmux is not installed, so the terminal tests are skipped (apt-get install -y tmux).');

/** A URL where nothing listens: a port bound and released. */
async function closedPortURL(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

// `legion run` as a person at a terminal and a script see it: the built binary, the coordinator on the
// Anthropic SDK and the developer on the OpenAI SDK, against aimock (or a closed port) on 127.0.0.1.
describe('legion run says what it is doing on stderr, and each failure once', () => {
  const workspace = useWorkspace('legion-run-progress-');
  const { mock, env, useModel } = workspace;

  const legion = (args: string[], extraEnv: Record<string, string> = {}): Promise<LegionRun> =>
    runLegion(args, { cwd: workspace.dir, env: { ...process.env, ...env(), ...extraEnv }, input: '', timeoutMs: 60_000 });

  /** coordinator delegates to developer, who writes a file, then both reply; `latency` slows each streamed chunk. */
  function scriptDelegation(latency = 0): void {
    useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
    useModel('developer', { provider: 'openai', model: 'gpt-test', baseURL: `${mock.url}/v1` });
    const userMessage = 'Add a health check';
    const delegation = { to: 'developer', message: 'Create src/health.ts exporting health()' };
    const write = { path: 'src/health.ts', content: 'export const health = () => "ok";\n' };
    const slow = { latency };
    mock.on(
      { model: 'claude-test', userMessage, hasToolResult: false },
      { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify(delegation) }] },
      slow,
    );
    mock.on({ model: 'claude-test', userMessage, hasToolResult: true }, { content: 'The developer added src/health.ts.' }, slow);
    mock.on(
      { model: 'gpt-test', userMessage: 'Create src/health.ts', hasToolResult: false },
      { toolCalls: [{ id: 'call_write', name: 'file_write', arguments: JSON.stringify(write) }] },
      slow,
    );
    mock.on({ model: 'gpt-test', userMessage: 'Create src/health.ts', hasToolResult: true }, { content: 'Created it.' }, slow);
  }

  it('with stderr not a terminal: plain progress lines on stderr, indented by depth, and only the reply on stdout', async () => {
    scriptDelegation();

    const run = await legion(['run', '--approve', 'auto', 'Add a health check']);

    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('The developer added src/health.ts.\n');
    expect(run.stderr.split('\n')).toEqual([
      // Neither test model is one Legion knows: each one's guessed window is said once, where its agent first works.
      expect.stringMatching(
        /^note: coordinator's model anthropic\/claude-test is unknown to Legion .* "models": \{ "anthropic\/claude-test": \{ "window": <tokens> \} \}\.$/,
      ),
      '  coordinator → developer "Create src/health.ts exporting health()"',
      expect.stringMatching(/^ {2}note: developer's model openai\/gpt-test is unknown to Legion/),
      expect.stringMatching(/^ {4}✓ developer {2}file_write {2}src\/health\.ts {2}\d+ ms {2}Created src\/health\.ts/),
      expect.stringMatching(/^ {2}✓ developer answered coordinator {2}\d/),
      '',
    ]);
    // Plain lines: no spinner, no cursor movement, no colour.
    expect(run.stderr).not.toMatch(/[\r\u001b⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);

    const quiet = await legion(['run', '--quiet', '--new-session', '--approve', 'auto', 'Add a health check']);
    expect(quiet.status, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
  }, 60_000);

  it.skipIf(TMUX_MISSING)(
    'on a terminal: a status line while it works and the steps on stderr; stdout (a file) gets the reply alone',
    async () => {
      // Slow enough for the status line to be seen while the coordinator waits on its first answer.
      scriptDelegation(150);
      const terminal = new TmuxTerminal(workspace.dir);
      try {
        const variables = Object.entries(env()).map(([name, value]) => `${name}=${value}`);
        const command = ['env', ...variables, process.execPath, LEGION, 'run', '--approve', 'auto', 'Add a health check'];
        terminal.start(`${command.map(shellQuote).join(' ')} > out.txt; echo "[legion exited: $?]"`);
        await terminal.waitFor(/coordinator thinking… · \d/);
        const shown = await terminal.waitFor('[legion exited: 0]');
        expect(shown).toMatch(
          /(?:^|\n) {2}coordinator → developer "Create src\/health\.ts exporting health\(\)"\n {2}note: developer's model openai\/gpt-test is unknown[^\n]*\n {4}✓ developer {2}file_write {2}src\/health\.ts .*\n {2}✓ developer answered coordinator .*\n\[legion exited: 0\]/,
        );
        // The status line was erased once the run ended: nothing of it is left on the screen.
        expect(shown).not.toMatch(/thinking…|writing…/);
        expect(readFileSync(join(workspace.dir, 'out.txt'), 'utf8')).toBe('The developer added src/health.ts.\n');
      } finally {
        terminal.kill();
      }
    },
    60_000,
  );

  it('a dead endpoint is said once, at once, with the fix, in every output format', async () => {
    // The provider's own endpoint moved to a closed port (a model server not started): the key may go there.
    const nowhere = await closedPortURL();

    for (const output of ['text', 'json', 'stream-json']) {
      const run = await legion(['run', '--output', output, '--new-session', 'hello'], { ANTHROPIC_BASE_URL: nowhere });

      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr.split(`cannot connect to ${nowhere}`), run.stderr).toHaveLength(2);
      expect(run.stderr).toMatch(
        /^legion: coordinator could not answer: .*connection refused .*\. Start the model server, or correct the base URL \(model\.baseURL or ANTHROPIC_BASE_URL\)\.\n$/,
      );
      if (output === 'text') expect(run.stdout).toBe('');
    }
  }, 60_000);
});
