import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
import { containment, CONTAINMENT_VARIABLE } from '@legion-collective/core/management';
import { hostPid, PID_NAMESPACE } from '@legion-collective/core/testing';

// A command cannot leave its process group behind and outlive Legion: processes that left the group
// (setsid, a double fork with nohup) end with the command and with Legion, however each ends. Real
// `legion run` processes, their model scripted through aimock and the real Anthropic SDK. Each test
// runs once per containment this machine has: a PID namespace (bubblewrap) where it works, and the
// environment-marker sweep that is used where it does not (forced with LEGION_CONTAINMENT).
const LEGION = fileURLToPath(new URL('../dist/legion.js', import.meta.url));
const PROCESS_LIMIT_MS = 45_000;
/** How long a recorded process may take to be gone: polled, and ends as soon as it is. */
const GONE_MS = 10_000;

/**
 * Starts `sh -c 'echo its pid …; exec sleep 300'` outside the command's process group, pid in `file`,
 * its output away from Legion's pipes as a daemon's would be (some machines end a process whose
 * output pipe lost its reader).
 */
const escapee = (how: string, file: string): string =>
  `${how} sh -c 'echo $$ ${PID_NAMESPACE} > ${file}; exec sleep 300' </dev/null >/dev/null 2>&1`;
/** `setsid -f`: a new session, forked so that even a group leader escapes. */
const SETSID = escapee('setsid -f', 'setsid.pid');
/** A double fork: nohup'd, setsid'd, in a subshell that exits at once, leaving it an orphan outside the group. */
const DOUBLE_FORK = `( ${escapee('nohup setsid', 'forked.pid')} & )`;
const ESCAPE = `${SETSID}; ${DOUBLE_FORK}; until [ -s setsid.pid ] && [ -s forked.pid ]; do sleep 0.02; done`;
const RECORDED = ['setsid.pid', 'forked.pid'];

const available = containment();
const kinds = [
  { kind: 'pid-namespace', env: {}, skip: available.kind !== 'pid-namespace' ? available.reason : undefined },
  {
    kind: 'process-group+environment',
    env: { [CONTAINMENT_VARIABLE]: 'process-group' },
    skip: process.platform !== 'linux' ? 'no /proc here' : undefined,
  },
];

describe.each(kinds)('commands and everything they start end with legion ($kind)', ({ kind, env: containmentEnv, skip }) => {
  let mock: LLMock;
  let dir: string;
  const runs: ChildProcess[] = [];

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: '127.0.0.1' });
    await mock.start();
  });
  afterAll(() => mock.stop());
  beforeEach(async (context) => {
    // Says which containment this machine tests, and why one is left out.
    if (skip !== undefined) context.skip(`${kind} is not available here: ${skip}`);
    dir = mkdtempSync(join(tmpdir(), 'legion-contain-'));
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
        { ...JSON.parse(readFileSync(config, 'utf8')), policies: { shell_run: 'auto', process_start: 'auto', process_stop: 'auto' } },
        null,
        2,
      ),
    );
  });
  afterEach(() => {
    // A failed assertion must leave nothing running: SIGKILL of legion ends its commands (that is what is tested).
    for (const run of runs.splice(0)) run.kill('SIGKILL');
    for (const file of RECORDED) {
      const pid = recorded(file);
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    mock.clearFixtures();
    mock.resetMatchCounts();
  });

  function env(): NodeJS.ProcessEnv {
    const base = { ...process.env };
    delete base[CONTAINMENT_VARIABLE];
    return {
      ...base,
      ...containmentEnv,
      NO_COLOR: '1',
      XDG_CONFIG_HOME: join(dir, '.xdg'),
      ANTHROPIC_API_KEY: 'test',
      ANTHROPIC_BASE_URL: mock.url,
    };
  }

  /** The model calls each tool in turn, each once the previous one's result is in, then says `done`. */
  function script(userMessage: string, calls: { tool: string; input: Record<string, unknown> }[]): void {
    calls.forEach((call, index) => {
      const toolCalls = [{ id: `toolu_${index}`, name: call.tool, arguments: JSON.stringify(call.input) }];
      mock.on(
        index === 0
          ? { model: 'claude-test', userMessage, hasToolResult: false }
          : { model: 'claude-test', userMessage, toolCallId: `toolu_${index - 1}` },
        { toolCalls },
      );
    });
    mock.on({ model: 'claude-test', userMessage, toolCallId: `toolu_${calls.length - 1}` }, { content: 'done' });
  }

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
    runs.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.resume();
    const closed = new Promise<{ status: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
      child.once('close', (status, signal) => resolve({ status, signal, stderr })),
    );
    return { child, closed };
  }

  /** The host pid of a process the command recorded in `file`, while it runs (a zombie has ended). */
  function recorded(file: string): number | undefined {
    const path = join(dir, file);
    if (!existsSync(path) || readFileSync(path, 'utf8').trim() === '') return undefined;
    const pid = hostPid(readFileSync(path, 'utf8'));
    if (pid === undefined) return undefined;
    try {
      return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8')) ? undefined : pid;
    } catch {
      return undefined;
    }
  }

  async function escapeesRunning(): Promise<void> {
    await expect.poll(() => RECORDED.every((file) => existsSync(join(dir, file))), { timeout: PROCESS_LIMIT_MS }).toBe(true);
    for (const file of RECORDED) expect(recorded(file), `${file}: the escaped process runs`).toBeGreaterThan(0);
  }

  async function escapeesGone(): Promise<void> {
    for (const file of RECORDED)
      await expect.poll(() => recorded(file), { timeout: GONE_MS, message: `${file}: the escaped process is gone` }).toBeUndefined();
  }

  it('after a run that ends normally', async () => {
    script('Escape', [{ tool: 'shell_run', input: { command: ESCAPE } }]);
    const run = startLegion('Escape');
    const ended = await run.closed;
    expect(ended.status, ended.stderr).toBe(0);
    expect(RECORDED.every((file) => existsSync(join(dir, file)))).toBe(true);
    await escapeesGone();
  });

  it.each(['SIGINT', 'SIGTERM', 'SIGKILL'] as const)('after %s of legion mid-command', async (signal) => {
    script('Escape and wait', [{ tool: 'shell_run', input: { command: `${ESCAPE}; sleep 300` } }]);
    const run = startLegion('Escape and wait');
    await escapeesRunning();
    run.child.kill(signal);
    await run.closed;
    await escapeesGone();
  });

  /** Waits (a shell_run) until the test has looked: Legion still runs while the escapees must be gone. */
  const HOLD = { tool: 'shell_run', input: { command: 'until [ -e proceed ]; do sleep 0.02; done' } };

  it('after process_stop, while legion goes on', async () => {
    script('Serve', [
      { tool: 'process_start', input: { command: `${ESCAPE}; sleep 300` } },
      // Waits until the test has seen the escapees run: process_stop would otherwise end them before it looks.
      { tool: 'shell_run', input: { command: 'until [ -e looked ]; do sleep 0.02; done' } },
      { tool: 'process_stop', input: { id: 'proc-1' } },
      HOLD,
    ]);
    const run = startLegion('Serve');
    await escapeesRunning();
    writeFileSync(join(dir, 'looked'), '');
    await expect
      .poll(() => mock.getRequests().some((request) => JSON.stringify(request.body).includes('toolu_2')), { timeout: PROCESS_LIMIT_MS })
      .toBe(true);
    await escapeesGone();
    writeFileSync(join(dir, 'proceed'), '');
    expect((await run.closed).status).toBe(0);
  });

  it("after the tool's timeout, while legion goes on", async () => {
    script('Time out', [{ tool: 'shell_run', input: { command: `${ESCAPE}; sleep 300`, timeout_ms: 3000 } }, HOLD]);
    const run = startLegion('Time out');
    await escapeesRunning();
    await expect
      .poll(() => mock.getRequests().some((request) => JSON.stringify(request.body).includes('Timed out after 3000 ms')), {
        timeout: PROCESS_LIMIT_MS,
      })
      .toBe(true);
    await escapeesGone();
    writeFileSync(join(dir, 'proceed'), '');
    expect((await run.closed).status).toBe(0);
  });
});
