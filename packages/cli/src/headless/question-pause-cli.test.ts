import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunReportSchema } from './stream-line.js';
import { LEGION, runLegion } from '../legion-process.test-support.js';
import { legionCommandLine, tmuxOn, waitForText } from '../tmux.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';
import { TmuxTerminal } from '../repl/terminal.test-support.js';

// A question is treated like an approval (issue 27): `legion run` asks on its terminal; with no
// terminal it waits for a surface another process attached (`legion serve`'s browser app, through
// its API); with nobody anywhere it pauses durably (exit 2) and `legion answer` finishes the work.
// The built binary, its agents on the real Anthropic and OpenAI SDKs against aimock on 127.0.0.1.
const PROCESS_LIMIT_MS = 45_000;
const TMUX_MISSING = spawnSync('tmux', ['-V']).status !== 0;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

describe('a question from an agent in legion run: asked, waited for elsewhere, or paused', () => {
  const workspace = useWorkspace('legion-question-pause-');
  const { mock, env, useModel, toolResultSent } = workspace;
  const children: ChildProcessWithoutNullStreams[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  function legion(args: string[]): Promise<Run> {
    return runLegion(args, { cwd: workspace.dir, env: { ...process.env, ...env() }, input: '', timeoutMs: PROCESS_LIMIT_MS });
  }

  function expectExit(run: Run, status: number): void {
    expect(run.status, `exit ${run.status}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(status);
  }

  /** coordinator (Anthropic) delegates to developer (OpenAI), who asks the user, then replies with what it was told. */
  function scriptQuestion(userMessage: string): void {
    useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
    useModel('developer', { provider: 'openai', model: 'gpt-test', baseURL: `${mock.url}/v1` });
    mock.on(
      { model: 'claude-test', userMessage, hasToolResult: false },
      {
        toolCalls: [
          { id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Start the server' }) },
        ],
      },
    );
    mock.on({ model: 'claude-test', userMessage, hasToolResult: true }, { content: 'The server is up.' });
    mock.on(
      { model: 'gpt-test', userMessage: 'Start the server', hasToolResult: false },
      {
        toolCalls: [
          { id: 'call_ask', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which port should it listen on?' }) },
        ],
      },
    );
    mock.on({ model: 'gpt-test', userMessage: 'Start the server', hasToolResult: true }, { content: 'It listens on the port you gave.' });
  }

  it('with nobody to ask, the run pauses (exit 2) naming the question; legion answer resumes the whole chain once and prints the reply', async () => {
    scriptQuestion('Start a server');

    const paused = await legion(['run', 'Start a server']);

    expectExit(paused, 2);
    expect(paused.stdout).toBe('');
    const id = /(q_[0-9a-f]+) {2}developer asks user: Which port should it listen on\?/.exec(paused.stderr)?.[1];
    expect(id, paused.stderr).toBeDefined();
    expect(paused.stderr).toMatch(new RegExp(`Answer with: legion answer --session \\S+ ${id} "…"`));
    expect(paused.stderr).not.toContain('unavailable');
    // The asker was told nothing yet: no result went back for its question.
    expect(toolResultSent('call_ask')).toBeUndefined();
    const listed = JSON.parse((await legion(['questions', '--json'])).stdout) as { questions: Array<{ id: string; from: string }> };
    expect(listed.questions).toEqual([expect.objectContaining({ id, from: 'developer' })]);

    // A new message is not merged into the wait: it is refused, saying what to answer first.
    const meanwhile = await legion(['run', 'Something else']);
    expectExit(meanwhile, 1);
    expect(meanwhile.stderr).toContain(
      `paused until a question is answered: ${id} (developer asks user: "Which port should it listen on?")`,
    );

    const answered = await legion(['answer', id!, 'Port 8080']);

    expectExit(answered, 0);
    expect(answered.stdout).toBe('The server is up.\n');
    expect(toolResultSent('call_ask')).toBe('Port 8080');
    expect(toolResultSent('toolu_delegate')).toBe('It listens on the port you gave.');
    const again = await legion(['answer', id!, 'Port 9090']);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain('already answered');
  }, 60_000);

  it('--output json: the paused run reports answer_required and the question as pending, with its id', async () => {
    scriptQuestion('Start a server');

    const paused = await legion(['run', '--output', 'json', 'Start a server']);

    expectExit(paused, 2);
    const report = RunReportSchema.parse(JSON.parse(paused.stdout));
    expect(report).toMatchObject({ status: 'answer_required', reply: null });
    expect(report.approvals).toBeUndefined();
    expect(report.questions).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^q_/),
        from: 'developer',
        to: 'user',
        chain: ['user', 'coordinator', 'developer'],
        answered: false,
        pending: true,
      }),
    ]);
  }, 60_000);

  /** Starts `legion serve` on the workspace; resolves with its URL and token once it printed them. */
  async function serve(): Promise<{ url: URL; token: string }> {
    const child = spawn(process.execPath, [LEGION, 'serve', '--port', '0'], { cwd: workspace.dir, env: { ...process.env, ...env() } });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /^Legion is serving .+ at (http:\/\/127\.0\.0\.1:\d+\/\?token=([\w-]+))\n/.exec(stdout);
        if (match) resolve({ url: new URL(match[1]!), token: match[2]! });
      });
      child.once('close', (status) => reject(new Error(`legion serve exited (${status}) before printing its URL: ${stdout}${stderr}`)));
    });
  }

  it("with legion serve open on the workspace, the run waits; the question is answered through serve's API from another process and the run finishes, exit 0", async () => {
    scriptQuestion('Start a server');
    const server = await serve();
    const api = async (path: string, init: RequestInit = {}): Promise<Response> =>
      fetch(new URL(path, server.url), {
        ...init,
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      });

    const run = legion(['run', 'Start a server']);
    let questions: Array<{ id: string; from: string; text: string }> = [];
    await expect
      .poll(
        async () => {
          questions = ((await (await api('/api/questions')).json()) as { questions: typeof questions }).questions;
          return questions.length;
        },
        { timeout: PROCESS_LIMIT_MS },
      )
      .toBe(1);
    expect(questions[0]).toMatchObject({ from: 'developer', text: 'Which port should it listen on?' });
    const answer = await api(`/api/questions/${questions[0]!.id}/answer`, {
      method: 'POST',
      body: JSON.stringify({ text: 'Port 8080, from the browser' }),
    });
    expect(answer.status, await answer.clone().text()).toBe(200);

    const finished = await run;
    expectExit(finished, 0);
    expect(finished.stdout).toBe('The server is up.\n');
    // The run said why it waited, and where the question can be answered.
    expect(finished.stderr).toMatch(
      new RegExp(
        `developer asks user: Which port should it listen on\\?\\n  waiting for an answer on web \\(pid \\d+\\), or: legion answer ${questions[0]!.id} "…"`,
      ),
    );
    expect(toolResultSent('call_ask')).toBe('Port 8080, from the browser');
  }, 60_000);

  it.skipIf(TMUX_MISSING)(
    'a REPL opened on the paused session shows the question; the answer typed there finishes the work in the REPL',
    async () => {
      scriptQuestion('Start a server');
      const paused = await legion(['run', 'Start a server']);
      expectExit(paused, 2);

      const terminal = new TmuxTerminal(workspace.dir);
      try {
        terminal.start(legionCommandLine(env(), []));
        const card = await terminal.waitFor('type your answer and press Enter');
        expect(card).toContain('question from developer in developer__user');
        expect(card).toContain('Which port should it listen on?');
        terminal.type('Port 9000, from the REPL');
        await terminal.waitFor('coordinator: The server is up.');
        expect(toolResultSent('call_ask')).toBe('Port 9000, from the REPL');
        expect(toolResultSent('toolu_delegate')).toBe('It listens on the port you gave.');
      } finally {
        terminal.kill();
      }
    },
    60_000,
  );

  it.skipIf(TMUX_MISSING)(
    'its sibling: a REPL opened on a session paused on an approval offers the approval; approved there, the turn finishes in the REPL',
    async () => {
      useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
      mock.on(
        { model: 'claude-test', userMessage: 'Write the notes', hasToolResult: false },
        { toolCalls: [{ id: 'toolu_write', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'hello' }) }] },
      );
      mock.on({ model: 'claude-test', userMessage: 'Write the notes', hasToolResult: true }, { content: 'notes.txt is written.' });
      expectExit(await legion(['run', 'Write the notes']), 2);

      const terminal = new TmuxTerminal(workspace.dir);
      try {
        terminal.start(legionCommandLine(env(), []));
        expect(await terminal.waitFor('1. Approve once')).toContain('approval needed  coordinator wants to run file_write');
        terminal.type('1');
        await terminal.waitFor('coordinator: notes.txt is written.');
        expect(readFileSync(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('hello');
      } finally {
        terminal.kill();
      }
    },
    60_000,
  );

  it.skipIf(TMUX_MISSING)(
    'on a terminal (tmux), legion run asks the question there; the typed answer reaches the agent',
    async () => {
      scriptQuestion('Start a server');
      const socket = join(workspace.dir, 'tmux.sock');
      const config = join(workspace.dir, 'tmux.conf');
      writeFileSync(config, 'set -g remain-on-exit on\nset -g history-limit 5000\n');
      const command = legionCommandLine(env(), ['run', 'Start a server']);
      const tmux = tmuxOn(socket, config, workspace.dir);
      const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'legion');
      const waitForScreen = (text: string) => waitForText(screen, text);
      tmux('new-session', '-d', '-s', 'legion', '-x', '200', '-y', '50', '-c', workspace.dir, command);
      try {
        const asked = await waitForScreen('your answer:');
        expect(asked).toContain('question developer asks user (waiting on it: user → coordinator → developer)');
        expect(asked).toContain('Which port should it listen on?');
        // An empty line is not an answer: asked again.
        tmux('send-keys', '-t', 'legion', 'Enter');
        await waitForScreen('type the answer developer gets');
        tmux('send-keys', '-t', 'legion', '-l', 'Port 8080, typed');
        tmux('send-keys', '-t', 'legion', 'Enter');
        const final = await waitForScreen('[legion exited:');
        expect(final).toContain('The server is up.');
        expect(final).toContain('[legion exited: 0]');
        expect(toolResultSent('call_ask')).toBe('Port 8080, typed');
      } finally {
        tmux('kill-server');
      }
    },
    60_000,
  );
});
