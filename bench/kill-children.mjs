// Kills real `legion run` processes while their agent's shell command runs, many times, and counts
// what the command left alive. Each round: the model (aimock) calls shell_run with a command that puts
// a `sleep` in the background (and one outside its group, `setsid -f`) and waits; once it runs, legion
// is killed by one of SIGKILL, SIGHUP, SIGTERM or a double SIGINT (round-robin), and we watch the
// command's processes. Before children were
// supervised, every SIGKILL, SIGHUP and double Ctrl-C left both running. Prints how long they took to
// die (median and worst) and how many survived (must be 0). ROUNDS=100 node bench/kill-children.mjs
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
import { median, printJson, removeDir, tempDir } from './lib.mjs';

const { hostPid, PID_NAMESPACE } = await import(fileURLToPath(new URL('../packages/core/dist/testing/index.js', import.meta.url)));

const ROUNDS = Number(process.env.ROUNDS ?? 20);
/** A process still alive this long after legion died counts as a survivor. */
const SURVIVOR_MS = 10_000;
const LEGION = fileURLToPath(new URL('../packages/cli/dist/legion.js', import.meta.url));
const WAYS = ['SIGKILL', 'SIGHUP', 'SIGTERM', 'double SIGINT'];

const mock = new LLMock({ port: 0, host: '127.0.0.1' });
await mock.start();
const env = (dir) => ({
  ...process.env,
  NO_COLOR: '1',
  XDG_CONFIG_HOME: join(dir, '.xdg'),
  ANTHROPIC_API_KEY: 'bench',
  ANTHROPIC_BASE_URL: mock.url,
});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitFor(condition, limitMs) {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(5);
  }
  return true;
}

const died = [];
const survivorsByWay = Object.fromEntries(WAYS.map((way) => [way, 0]));
let survivors = 0;
const started = performance.now();
for (let round = 0; round < ROUNDS; round++) {
  const way = WAYS[round % WAYS.length];
  const dir = tempDir('kill-children');
  try {
    const init = spawn(process.execPath, [LEGION, 'init'], { cwd: dir, env: env(dir), stdio: 'ignore' });
    await new Promise((resolve) => init.once('close', resolve));
    const coordinator = join(dir, '.legion/collective/participants/coordinator.json');
    writeFileSync(
      coordinator,
      JSON.stringify({ ...JSON.parse(readFileSync(coordinator, 'utf8')), model: { provider: 'anthropic', model: 'claude-kill' } }),
    );
    const config = join(dir, '.legion/config.json');
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), policies: { shell_run: 'auto' } }));
    const userMessage = `Run it, round ${round}`;
    // The command ignores SIGTERM, as a careless server would: only a real kill ends it. It also leaves a
    // process outside its group (setsid -f), as a daemon would. Pids come with their PID namespace.
    const command = `trap '' TERM; setsid -f sh -c 'echo $$ ${PID_NAMESPACE} > esc.pid; exec sleep 300' </dev/null >/dev/null 2>&1; sleep 300 & echo $! ${PID_NAMESPACE} > bg.pid; echo $$ ${PID_NAMESPACE} > fg.pid; sleep 300`;
    mock.on(
      { model: 'claude-kill', userMessage, hasToolResult: false },
      { toolCalls: [{ id: `toolu_${round}`, name: 'shell_run', arguments: JSON.stringify({ command }) }] },
    );

    const child = spawn(process.execPath, [LEGION, 'run', userMessage], { cwd: dir, env: env(dir), stdio: 'ignore' });
    const closed = new Promise((resolve) => child.once('close', resolve));
    const pidFile = (name) => join(dir, name);
    const files = ['bg.pid', 'fg.pid', 'esc.pid'];
    const ready = await waitFor(
      () => files.every((name) => existsSync(pidFile(name)) && readFileSync(pidFile(name), 'utf8').includes('\n')),
      30_000,
    );
    if (!ready) throw new Error(`round ${round}: the command did not start`);
    const pids = files.map((name) => hostPid(readFileSync(pidFile(name), 'utf8'))).filter((pid) => pid !== undefined);
    if (way === 'double SIGINT') {
      child.kill('SIGINT');
      await sleep(50);
      child.kill('SIGINT');
    } else {
      child.kill(way);
    }
    await closed;
    const killedAt = performance.now();
    const gone = await waitFor(() => pids.every((pid) => !alive(pid)), SURVIVOR_MS);
    if (gone) died.push(performance.now() - killedAt);
    else {
      survivors++;
      survivorsByWay[way]++;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  } finally {
    removeDir(dir);
  }
}
const seconds = (performance.now() - started) / 1000;
await mock.stop();

const medianMs = died.length ? Math.round(median(died)) : null;
const worstMs = died.length ? Math.round(Math.max(...died)) : null;
console.log(`kill children: ${ROUNDS} legion runs killed mid-command (${WAYS.join(', ')}, in turn; ${seconds.toFixed(1)} s)`);
console.log(
  `  command processes alive ${SURVIVOR_MS / 1000} s after legion died: ${survivors} (must be 0) ${JSON.stringify(survivorsByWay)}`,
);
console.log(`  time from legion's death to its command's: median ${medianMs} ms, worst ${worstMs} ms`);
printJson('kill-children', { rounds: ROUNDS, survivors, survivorsByWay, medianMs, worstMs, seconds: Number(seconds.toFixed(1)) });
process.exitCode = survivors === 0 ? 0 : 1;
