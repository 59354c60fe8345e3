// Helpers of the `legion serve` benches (not a bench itself): a workspace on aimock, the built
// binary's `legion serve`, and the system's Chromium through playwright-core.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

/** The built binary; `BENCH_LEGION` names another build of it (an A/B of two builds, run interleaved). */
export const LEGION = process.env.BENCH_LEGION ?? fileURLToPath(new URL('../packages/cli/dist/legion.js', import.meta.url));

export function findChromium() {
  for (const candidate of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'])
    if (candidate && existsSync(candidate)) return candidate;
  const which = spawnSync('which', ['chromium'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() !== '' ? which.stdout.trim() : null;
}

export function launchChromium() {
  const executablePath = findChromium();
  if (executablePath === null) {
    console.error('no Chromium: install Debian’s `chromium` or set CHROMIUM_PATH');
    process.exit(2);
  }
  return chromium.launch({ executablePath, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
}

/** `legion init` in `dir`, agents on aimock at `mockUrl`; `config` is merged into .legion/config.json. */
export function prepareWorkspace(dir, mockUrl, config = {}) {
  const env = {
    ...process.env,
    NO_COLOR: '1',
    XDG_CONFIG_HOME: join(dir, '.xdg'),
    ANTHROPIC_API_KEY: 'test',
    OPENAI_API_KEY: 'test',
    ANTHROPIC_BASE_URL: mockUrl ?? '',
    OPENAI_BASE_URL: mockUrl ? `${mockUrl}/v1` : '',
  };
  const init = spawnSync(process.execPath, [LEGION, 'init'], { cwd: dir, env, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`legion init failed: ${init.stderr}`);
  const configFile = join(dir, '.legion/config.json');
  writeFileSync(configFile, JSON.stringify({ ...JSON.parse(readFileSync(configFile, 'utf8')), ...config }, null, 2));
  if (mockUrl) {
    const use = (participant, model) => {
      const file = join(dir, '.legion/collective/participants', `${participant}.json`);
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), model }, null, 2));
    };
    use('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mockUrl });
    use('developer', { provider: 'openai', model: 'gpt-test', baseURL: `${mockUrl}/v1` });
  }
  return env;
}

const SERVING = /Legion is serving .* at (http:\/\/127\.0\.0\.1:\d+)\/\?token=([A-Za-z0-9_-]+)/;

/**
 * Spawns `legion serve --port 0`; resolves with its URL once printed, and when (performance.now()) it was spawned.
 * `nodeArguments` go to node before the script (`--cpu-prof`, which NODE_OPTIONS refuses).
 */
export function startServe(dir, env, nodeArguments = []) {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...nodeArguments, LEGION, 'serve', '--port', '0'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    let started = false;
    const collect = (chunk) => {
      output += chunk.toString();
      const match = started ? null : SERVING.exec(output);
      if (!match) return;
      started = true;
      resolve({
        spawnedAt,
        printedAt: performance.now(),
        url: `${match[1]}/?token=${match[2]}`,
        origin: match[1],
        token: match[2],
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => started || reject(new Error(`legion serve exited (${code}) before printing its URL:\n${output}`)));
  });
}

/** Chromium's kind of process (renderer, gpu-process, utility, zygote), or "browser". */
function chromiumProcessType(pid) {
  try {
    // Chromium rewrites its title: the arguments are joined by spaces, not NULs.
    const type = /--type=([\w-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    return type ? type[1] : 'browser';
  } catch {
    return 'gone';
  }
}

/**
 * CPU time (user + system, ms) used so far by this process's descendants, by program (`chromium`,
 * `node`…): with the machine shared, latency depends on who else runs, CPU spent on the work does less.
 * Linux only (/proc); elsewhere, an empty map.
 */
export function descendantsCpuMs() {
  const clockTicks = 100; // USER_HZ: 100 on every Linux this runs on
  const processes = [];
  let entries = [];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return new Map();
  }
  for (const pid of entries) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The name is in parentheses and may hold spaces: fields are counted after its closing one.
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      processes.push({
        pid: Number(pid),
        name,
        ppid: Number(fields[1]),
        cpu: ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks,
      });
    } catch {
      // gone meanwhile
    }
  }
  const children = new Map();
  for (const entry of processes) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);
  const totals = new Map();
  const visit = (pid) => {
    for (const child of children.get(pid) ?? []) {
      const program = child.name.startsWith('chrom') ? 'chromium' : child.name;
      totals.set(program, (totals.get(program) ?? 0) + child.cpu);
      if (program === 'chromium') {
        // Which Chromium process: renderer, gpu-process, utility (the network service), or the browser.
        const kind = `chromium:${chromiumProcessType(child.pid)}`;
        totals.set(kind, (totals.get(kind) ?? 0) + child.cpu);
      }
      visit(child.pid);
    }
  };
  visit(process.pid);
  return totals;
}
