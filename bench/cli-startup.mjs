// Cold start of the `legion` binary, each run a new process: bare node, --version, --help,
// `legion sessions` in a workspace with a few sessions, the other commands that open it (log, approvals, agents list,
// config show, tools list, doctor), a headless one-shot `legion run` (continuing the latest session, whose
// history is reset each round) whose model (through the official Anthropic and OpenAI SDKs) is a zero-latency wire-protocol server
// on 127.0.0.1 in this process, and the demo. The commands run in interleaved rounds, so a burst
// of load on a shared machine hits all of them alike, and every figure is also given as
// "node + X": Legion's own cost over a bare node start measured in the same run. Beside wall-clock
// time, each process's CPU time (all threads, reported by cpu-usage-preload.cjs, preloaded into
// every process alike) shows the cost when the machine is too busy for wall-clock figures to mean much.
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { median, min, ms, printJson, removeDir, round, tempDir } from './lib.mjs';
import { startZeroLatencyModel } from './zero-latency-model.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LEGION = process.env.BENCH_LEGION ?? join(ROOT, 'packages', 'cli', 'dist', 'legion.js');
/** Another build (say, a git worktree of main) whose workspace commands run in the same rounds, interleaved, for an A/B comparison. */
const BASE = process.env.BENCH_LEGION_BASE;
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 12);
const SESSIONS = 4;
const VERSION = JSON.parse(readFileSync(join(ROOT, 'packages', 'cli', 'package.json'), 'utf8')).version;
/** The node:http server's reply, so `legion run` can check it printed the model's text. */
const REPLY = 'pong';
const PRELOAD = ['--require', fileURLToPath(new URL('./cpu-usage-preload.cjs', import.meta.url))];
/**
 * A directory: every run also writes a V8 CPU profile (`--cpu-prof`) to its command's folder in it,
 * to see where start-up goes. Each command's options stay the same from run to run, since they
 * are part of the compile cache's key; the warm-up round's profiles are removed.
 */
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;

const model = await startZeroLatencyModel(REPLY);
const workspace = tempDir('cli-startup');
const env = {
  ...process.env,
  NO_COLOR: '1',
  XDG_CONFIG_HOME: join(workspace, '.xdg'),
  // The binary's compile cache (docs/design/cli-binary.md): filled by the warm-up round, as by a user's first run of each command.
  XDG_CACHE_HOME: join(workspace, '.cache'),
  ANTHROPIC_API_KEY: 'bench',
  OPENAI_API_KEY: 'bench',
  ANTHROPIC_BASE_URL: model.url,
  OPENAI_BASE_URL: `${model.url}/v1`,
};

/** One `node …` process to its exit; resolves with its wall-clock and CPU time (ms) and output. Asynchronous: the model server shares this event loop. */
function launch(args, cwd = workspace, extraEnv = {}, profileAs = undefined) {
  return new Promise((resolve, reject) => {
    const profile = CPU_PROF_DIR && profileAs ? ['--cpu-prof', '--cpu-prof-dir', join(CPU_PROF_DIR, profileAs)] : [];
    const started = performance.now();
    const child = spawn(process.execPath, [...PRELOAD, ...profile, ...args], {
      cwd,
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => {
      const elapsed = performance.now() - started;
      const cpu = Number(/BENCH_CPU_MS ([\d.]+)/.exec(stderr)?.[1]);
      if (status !== 0) reject(new Error(`node ${args.join(' ')} exited with ${status}:\n${stderr}${stdout}`));
      else resolve({ elapsed, cpu, stdout, stderr });
    });
  });
}

function useModel(participant, settings) {
  const file = join(workspace, '.legion', 'collective', 'participants', `${participant}.json`);
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), model: settings }, null, 2));
}

// The workspace: `legion init`'s team, the coordinator on Anthropic's SDK, the developer on OpenAI's, and a few sessions.
await launch([LEGION, 'init']);
useModel('coordinator', { provider: 'anthropic', model: 'claude-bench' });
useModel('developer', { provider: 'openai', model: 'gpt-bench' });
for (let i = 0; i < SESSIONS; i++) await launch([LEGION, 'run', '--new-session', `hello ${i}`]);
// `legion run "hi"` continues the latest session, as a user's one-shot does, and adds an exchange to it. Each
// round starts from the sessions as they are now (one exchange each), so that every round times the same
// work rather than a history that grows by two messages a round.
const SESSIONS_DIR = join(workspace, '.legion', 'sessions');
const SESSIONS_SNAPSHOT = join(workspace, '.sessions-snapshot');
cpSync(SESSIONS_DIR, SESSIONS_SNAPSHOT, { recursive: true });
const restoreSessions = () => {
  rmSync(SESSIONS_DIR, { recursive: true, force: true });
  cpSync(SESSIONS_SNAPSHOT, SESSIONS_DIR, { recursive: true, preserveTimestamps: true });
};

const expectReply = (out) => {
  if (out.trim() !== REPLY) throw new Error(`legion run printed ${JSON.stringify(out.slice(0, 300))}`);
};
const expectOutput = (name, text) => (out) => {
  if (!out.includes(text)) throw new Error(`${name} printed ${JSON.stringify(out.slice(0, 300))}`);
};
const demoDirs = [];
const commands = [
  { key: 'nodeBare', label: 'node -e 0 (reference)', args: () => ['-e', '0'], check: () => {} },
  {
    key: 'version',
    label: 'legion --version',
    args: () => [LEGION, '--version'],
    check: (out) => {
      if (out.trim() !== VERSION) throw new Error(`--version printed ${JSON.stringify(out)}`);
    },
  },
  {
    key: 'help',
    label: 'legion --help',
    args: () => [LEGION, '--help'],
    check: (out) => {
      if (!out.includes('Usage: legion')) throw new Error(`--help printed ${JSON.stringify(out.slice(0, 200))}`);
    },
  },
  {
    key: 'sessions',
    label: `legion sessions (${SESSIONS}+ sessions)`,
    args: () => [LEGION, 'sessions'],
    check: (out) => {
      if (out.trim().split('\n').length < SESSIONS) throw new Error(`sessions printed ${JSON.stringify(out.slice(0, 300))}`);
    },
  },
  // The other commands that open the workspace (its config, collective and sessions) and print what they read.
  { key: 'log', label: 'legion log', args: () => [LEGION, 'log'], check: expectOutput('log', 'hello') },
  {
    key: 'approvals',
    label: 'legion approvals',
    args: () => [LEGION, 'approvals'],
    check: expectOutput('approvals', 'Nothing is waiting'),
  },
  {
    key: 'agentsList',
    label: 'legion agents list',
    args: () => [LEGION, 'agents', 'list'],
    check: expectOutput('agents list', 'coordinator'),
  },
  {
    key: 'configShow',
    label: 'legion config show',
    args: () => [LEGION, 'config', 'show'],
    check: expectOutput('config show', 'entryAgent'),
  },
  // These two do more than read the workspace: tools list counts every tool schema's tokens, doctor checks the set-up.
  {
    key: 'toolsList',
    label: 'legion tools list',
    args: () => [LEGION, 'tools', 'list'],
    check: expectOutput('tools list', 'its model sees'),
  },
  { key: 'doctor', label: 'legion doctor --json', args: () => [LEGION, 'doctor', '--json'], check: expectOutput('doctor', '"checks"') },
  { key: 'runAnthropic', label: 'legion run "hi" (Anthropic SDK, local server)', args: () => [LEGION, 'run', 'hi'], check: expectReply },
  {
    key: 'runOpenAI',
    label: 'legion run --to developer "hi" (OpenAI SDK)',
    args: () => [LEGION, 'run', '--to', 'developer', 'hi'],
    check: expectReply,
  },
  {
    key: 'demo',
    label: 'legion demo --pace 0 --dir <fresh temp dir>',
    args: () => {
      const dir = tempDir('demo');
      demoDirs.push(dir);
      return [LEGION, 'demo', '--pace', '0', '--dir', dir];
    },
    check: (out) => {
      if (!out.includes('conversations saved in')) throw new Error(`demo printed ${JSON.stringify(out.slice(-300))}`);
    },
  },
];
/** The commands that open the workspace and print what they read, and their budget in CPU time over bare node. */
const WORKSPACE_COMMANDS = ['sessions', 'log', 'approvals', 'agentsList', 'configShow'];
const WORKSPACE_CPU_BUDGET = 45;
const COMPARED = [...WORKSPACE_COMMANDS, 'runAnthropic', 'runOpenAI'];
/** BENCH_COMMANDS=sessions,log times only these (and bare node), for a quicker comparison. */
const ONLY = process.env.BENCH_COMMANDS?.split(',');
if (ONLY) {
  const unknown = ONLY.filter((key) => !commands.some((command) => command.key === key));
  if (unknown.length > 0)
    throw new Error(`BENCH_COMMANDS: no command ${unknown.join(', ')}; known: ${commands.map((command) => command.key).join(', ')}`);
  commands.splice(0, commands.length, ...commands.filter((command) => command.key === 'nodeBare' || ONLY.includes(command.key)));
}
if (BASE) {
  // Its own compile cache: the two builds' caches must not meet (they would not: the key is the build's hash, but the warm-up fills each alike).
  const baseEnv = { XDG_CACHE_HOME: join(workspace, '.cache-base') };
  for (const key of COMPARED.filter((candidate) => commands.some((command) => command.key === candidate))) {
    const command = commands.find((candidate) => candidate.key === key);
    commands.push({
      ...command,
      key: `base_${key}`,
      label: `base: ${command.label}`.slice(0, 48),
      args: () => [BASE, ...command.args().slice(1)],
      env: baseEnv,
    });
  }
}

console.log(
  `cli-startup — cold start of node ${LEGION.startsWith(ROOT) ? LEGION.slice(ROOT.length) : LEGION} (${RUNS} interleaved rounds after one warm-up round, which fills the compile cache; new process each run; wall clock including process exit)`,
);
const times = Object.fromEntries(commands.map((command) => [command.key, []]));
const cpuTimes = Object.fromEntries(commands.map((command) => [command.key, []]));
try {
  // Round -1 warms the OS file cache and is not counted.
  for (let round = -1; round < RUNS; round++) {
    restoreSessions();
    for (const command of commands) {
      const { elapsed, cpu, stdout } = await launch(command.args(), workspace, command.env, command.key);
      command.check(stdout);
      if (round >= 0) {
        times[command.key].push(elapsed);
        cpuTimes[command.key].push(cpu);
      }
    }
    for (const dir of demoDirs.splice(0)) removeDir(dir);
    if (round === -1 && CPU_PROF_DIR) for (const command of commands) removeDir(join(CPU_PROF_DIR, command.key));
  }
} finally {
  await model.close();
  removeDir(workspace);
}

const figures = {};
const bare = median(times.nodeBare);
const bareCpu = median(cpuTimes.nodeBare);
console.log(`  ${''.padEnd(48)} ${'wall clock'.padEnd(45)} CPU time`);
for (const command of commands) {
  const values = times[command.key];
  const cpu = cpuTimes[command.key];
  figures[command.key] = {
    medianMs: round(median(values), 1),
    minMs: round(min(values), 1),
    overNodeMs: round(median(values) - bare, 1),
    cpuMedianMs: round(median(cpu), 1),
    cpuOverNodeMs: round(median(cpu) - bareCpu, 1),
  };
  const over = (value) => (command.key === 'nodeBare' ? '' : value < 0 ? `node − ${ms(-value)}` : `node + ${ms(value)}`).padEnd(17);
  console.log(
    `  ${command.label.padEnd(48)} median ${ms(median(values)).padStart(8)}   min ${ms(min(values)).padStart(8)}   ${over(median(values) - bare)} median ${ms(median(cpu)).padStart(8)}   ${over(median(cpu) - bareCpu)}`,
  );
}
const target = (key, budget) =>
  `${key} node + ${ms(figures[key].overNodeMs)} (CPU node + ${ms(figures[key].cpuOverNodeMs)}; target ≤ node + ${budget} ms: ${figures[key].overNodeMs <= budget ? 'OK' : 'OVER'})`;
console.log(
  `  targets: ${[
    ['sessions', 60],
    ['runAnthropic', 120],
    ['runOpenAI', 120],
  ]
    .filter(([key]) => figures[key])
    .map(([key, budget]) => target(key, budget))
    .join('; ')}`,
);
// The commands that open a workspace and read it: CPU time, which the load moves much less than wall-clock time.
const cpuTarget = (key) =>
  `${key} node + ${ms(figures[key].cpuOverNodeMs)} ${figures[key].cpuOverNodeMs <= WORKSPACE_CPU_BUDGET ? 'OK' : 'OVER'}`;
console.log(
  `  CPU targets (≤ node + ${WORKSPACE_CPU_BUDGET} ms): ${WORKSPACE_COMMANDS.filter((key) => figures[key])
    .map(cpuTarget)
    .join('; ')}`,
);
if (BASE) {
  const spread = (values) => `${ms(min(values))}–${ms(Math.max(...values))}`;
  for (const key of COMPARED.filter((candidate) => figures[candidate])) {
    const difference = (list) => round(median(list[`base_${key}`]) - median(list[key]), 1);
    const gain = (_field, list) => (difference(list) < 0 ? `−${ms(-difference(list))}` : ms(difference(list)));
    console.log(
      `  A/B ${key}: base − this: wall ${ms(gain('wall', times))} (base spread ${spread(times[`base_${key}`])}, this ${spread(times[key])}), CPU ${ms(gain('cpu', cpuTimes))} (base ${spread(cpuTimes[`base_${key}`])}, this ${spread(cpuTimes[key])})`,
    );
  }
}
printJson('cli-startup', figures);
