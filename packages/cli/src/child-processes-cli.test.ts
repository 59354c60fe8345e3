import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
import { Legion } from '@legion-collective/core';
import { CONTAINMENT_VARIABLE } from '@legion-collective/core/management';
import { hostPid, PID_NAMESPACE } from '@legion-collective/core/testing';

// Commands agents start must die with Legion however it ends: real `legion run`
// processes, killed the ways a person, a terminal or the OOM killer kills them,
// while their model (aimock, through the real Anthropic SDK) has a shell
// command running that left a process in the background.
const LEGION = fileURLToPath(new URL('../dist/legion.js', import.meta.url));
const PROCESS_LIMIT_MS = 45_000;

/** Polls until `check` holds (processes give no event for another process's death). */
async function until(check: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await delay(20);
  }
}

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie waiting for its parent to reap it is dead for our purposes.
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

const killQuietly = (pid: number): void => {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
};

describe('commands agents start die with legion', () => {
  let mock: LLMock;
  let dir: string;
  const started: number[] = [];

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: '127.0.0.1' });
    await mock.start();
  });
  afterAll(() => mock.stop());
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'legion-children-'));
    const init = spawn(process.execPath, [LEGION, 'init'], { cwd: dir, env: env(), stdio: 'ignore' });
    await new Promise((resolve) => init.once('close', resolve));
    const participant = join(dir, '.legion/collective/participants/coordinator.json');
    writeFileSync(
      participant,
      JSON.stringify(
        { ...JSON.parse(readFileSync(participant, 'utf8')), model: { provider: 'anthropic', model: 'claude-test', baseURL: mock.url } },
        null,
        2,
      ),
    );
    const config = join(dir, '.legion/config.json');
    writeFileSync(
      config,
      JSON.stringify(
        { ...JSON.parse(readFileSync(config, 'utf8')), policies: { shell_run: 'auto', process_start: 'auto', sleepy: 'auto' } },
        null,
        2,
      ),
    );
  });
  afterEach(() => {
    // Whatever a failed assertion left behind must not outlive the test.
    for (const pid of started.splice(0)) killQuietly(pid);
    rmSync(dir, { recursive: true, force: true });
    containmentEnv = {};
    mock.clearFixtures();
    mock.resetMatchCounts();
  });

  /** Set by a test that needs what a crash leaves behind: with a PID namespace nothing is (bwrap dies with legion). */
  let containmentEnv: NodeJS.ProcessEnv = {};
  function env(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      ...containmentEnv,
      NO_COLOR: '1',
      XDG_CONFIG_HOME: join(dir, '.xdg'),
      ANTHROPIC_API_KEY: 'test',
      ANTHROPIC_BASE_URL: mock.url,
    };
  }

  /** The model calls `tool` with `input` for `userMessage`, and says `done` once it has the result. */
  function script(userMessage: string, tool: string, input: Record<string, unknown>): void {
    mock.on(
      { model: 'claude-test', userMessage, hasToolResult: false },
      { toolCalls: [{ id: `toolu_${tool}`, name: tool, arguments: JSON.stringify(input) }] },
    );
    mock.on({ model: 'claude-test', userMessage, hasToolResult: true }, { content: 'done' });
  }

  /**
   * A shell command that leaves `sleep` in the background, writes its pid (with the PID namespace it
   * counts in: commands may run in one of their own), then waits in the foreground.
   */
  const LINGERING = `sleep 300 & echo $! ${PID_NAMESPACE} > bg.pid; echo $$ ${PID_NAMESPACE} > fg.pid; sleep 300`;

  function startLegion(message: string): {
    child: ChildProcess;
    closed: Promise<{ status: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  } {
    const child = spawn(process.execPath, [LEGION, 'run', message], {
      cwd: dir,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: PROCESS_LIMIT_MS,
      killSignal: 'SIGKILL',
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.resume();
    const closed = new Promise<{ status: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
      child.once('close', (status, signal) => resolve({ status, signal, stderr })),
    );
    return { child, closed };
  }

  /** Waits for the command to have started, and returns the pids of its foreground shell and background sleep. */
  async function lingeringPids(options: { alive?: boolean } = {}): Promise<{ fg: number | undefined; bg: number | undefined }> {
    const written = (name: string): boolean => existsSync(join(dir, name)) && readFileSync(join(dir, name), 'utf8').includes('\n');
    await until(() => written('bg.pid') && written('fg.pid'), 'the command has started');
    // The host's pids; undefined for one already gone.
    const pids = { fg: hostPid(readFileSync(join(dir, 'fg.pid'), 'utf8')), bg: hostPid(readFileSync(join(dir, 'bg.pid'), 'utf8')) };
    for (const pid of [pids.fg, pids.bg]) if (pid !== undefined) started.push(pid);
    if (options.alive !== false) expect(alive(pids.bg)).toBe(true);
    return pids;
  }

  it.each(['SIGKILL', 'SIGHUP', 'SIGTERM'] as const)(
    '%s of legion mid-command ends the command and what it left in the background',
    async (signal) => {
      script('Start the work', 'shell_run', { command: LINGERING });
      const { child, closed } = startLegion('Start the work');
      const { fg, bg } = await lingeringPids();
      child.kill(signal);
      await closed;
      await until(() => !alive(bg) && !alive(fg), `the command's processes are gone after ${signal}`);
    },
  );

  it('a second Ctrl-C ends legion at once, and a command that ignores SIGTERM with it', async () => {
    // SIGTERM ignored: the first Ctrl-C's graceful stop (SIGTERM, then SIGKILL after a grace) cannot end it quickly.
    script('Start the work', 'shell_run', { command: `trap '' TERM; ${LINGERING}` });
    const { child, closed } = startLegion('Start the work');
    const { fg, bg } = await lingeringPids();
    child.kill('SIGINT');
    await delay(100);
    child.kill('SIGINT');
    const ended = await closed;
    expect(ended.signal).toBe('SIGINT');
    await until(() => !alive(bg) && !alive(fg), 'the command is gone after the second Ctrl-C');
  });

  it('background processes (process_start) end with legion, and declarative shell tools are supervised too', async () => {
    // The model waits (shell_run) until the server has started, then ends the run: a run that ended at once would
    // end the server before it ran anything (a command starts only once its group is announced).
    const userMessage = 'Start a server';
    mock.on(
      { model: 'claude-test', userMessage, hasToolResult: false },
      { toolCalls: [{ id: 'toolu_start', name: 'process_start', arguments: JSON.stringify({ command: LINGERING }) }] },
    );
    const waitForPids = 'until [ -s bg.pid ] && [ -s fg.pid ]; do sleep 0.02; done';
    mock.on(
      { model: 'claude-test', userMessage, toolCallId: 'toolu_start' },
      { toolCalls: [{ id: 'toolu_wait', name: 'shell_run', arguments: JSON.stringify({ command: waitForPids }) }] },
    );
    mock.on({ model: 'claude-test', userMessage, toolCallId: 'toolu_wait' }, { content: 'done' });
    const server = startLegion(userMessage);
    // Legion may already be ending them by the time they are looked at.
    const first = await lingeringPids({ alive: false });
    // legion run ends normally here: its background processes end with it.
    expect((await server.closed).status).toBe(0);
    await until(() => !alive(first.bg) && !alive(first.fg), "process_start's processes are gone after legion exits");

    rmSync(join(dir, 'bg.pid'));
    rmSync(join(dir, 'fg.pid'));
    mkdirSync(join(dir, '.legion/tools'), { recursive: true });
    writeFileSync(
      join(dir, '.legion/tools/sleepy.json'),
      JSON.stringify({
        name: 'sleepy',
        description: 'waits',
        parameters: { type: 'object', properties: {} },
        execution: { type: 'shell', command: ['/bin/sh', '-c', LINGERING] },
      }),
    );
    script('Run the tool', 'sleepy', {});
    const tool = startLegion('Run the tool');
    const second = await lingeringPids();
    tool.child.kill('SIGKILL');
    await tool.closed;
    await until(() => !alive(second.bg) && !alive(second.fg), "the workspace tool's processes are gone after SIGKILL");
  });

  /** SIGKILLs legion and its supervisor together (as an OOM killer or `kill -9` of both would), leaving the command orphaned. */
  async function crashWithSupervisor(run: { child: ChildProcess; closed: Promise<unknown> }): Promise<void> {
    const recordsDir = join(dir, '.legion/run/processes');
    // Records appear complete (written aside, renamed): a name ending in .json is a whole record.
    const records = (): string[] => (existsSync(recordsDir) ? readdirSync(recordsDir).filter((name) => name.endsWith('.json')) : []);
    await until(() => records().length > 0, 'the process record is written');
    const record = JSON.parse(readFileSync(join(recordsDir, records()[0]!), 'utf8')) as { supervisor?: number; toolUseId: string };
    expect(record.toolUseId).toBe('toolu_shell_run');
    expect(record.supervisor).toBeGreaterThan(0);
    process.kill(record.supervisor!, 'SIGKILL');
    run.child.kill('SIGKILL');
    await run.closed;
  }

  it('what a crash left running is ended the next time the workspace opens, and said', async () => {
    // Without a PID namespace (bwrap's dies with legion, and everything in it): what is recorded is then all that finds them.
    containmentEnv = { [CONTAINMENT_VARIABLE]: 'process-group' };
    script('Start the work', 'shell_run', { command: LINGERING });
    const run = startLegion('Start the work');
    const { bg } = await lingeringPids();
    await crashWithSupervisor(run);
    // With nothing left to end it, the background process outlives the crash ...
    await delay(300);
    expect(alive(bg)).toBe(true);
    // ... until any legion command opens the workspace.
    const list = spawn(process.execPath, [LEGION, 'sessions'], { cwd: dir, env: env(), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    list.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise((resolve) => list.once('close', resolve));
    await until(() => !alive(bg), 'the leftover is ended');
    expect(stderr).toMatch(/ended process group \d+ \("sleep 300 & echo/);
    expect(stderr).toContain('toolu_shell_run');
    expect(readdirSync(join(dir, '.legion/run/processes'))).toEqual([]);
  });

  it('a resume that marks the crashed call interrupted ends what that call left running', async () => {
    // A long-lived Legion (a web UI, say) opened before the crash: nothing reopens the workspace.
    containmentEnv = { [CONTAINMENT_VARIABLE]: 'process-group' };
    const legion = Legion.open({
      root: dir,
      env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: mock.url },
      globalConfigFile: join(dir, '.xdg/none.json'),
    });
    try {
      script('Start the work', 'shell_run', { command: LINGERING });
      const run = startLegion('Start the work');
      const { bg } = await lingeringPids();
      await crashWithSupervisor(run);
      await delay(300);
      expect(alive(bg)).toBe(true);

      mock.on({ model: 'claude-test', userMessage: 'Go on' }, { content: 'carrying on' });
      const session = (await legion.sessions.latest())!;
      const result = await session.send({ from: 'user', to: 'coordinator', message: 'Go on' });
      expect(result).toMatchObject({ status: 'success', reply: 'carrying on' });
      await until(() => !alive(bg), "the interrupted call's leftover is ended");
      const log = readFileSync(join(dir, '.legion/sessions', session.id, 'conversations/user__coordinator.jsonl'), 'utf8');
      expect(log).toContain('interrupted: Legion stopped while shell_run was running');
      expect(legion.warnings.join('\n')).toMatch(/ended process group \d+ .*toolu_shell_run/);
    } finally {
      await legion.close();
    }
  });
});
