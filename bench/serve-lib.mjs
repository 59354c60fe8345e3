// Helpers of the `legion serve` benches (not a bench itself): a workspace on aimock, the built
// binary's `legion serve`, and the system's Chromium through playwright-core.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const LEGION = fileURLToPath(new URL('../packages/cli/dist/legion.js', import.meta.url));

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

/** Spawns `legion serve --port 0`; resolves with its URL once printed, and when (performance.now()) it was spawned. */
export function startServe(dir, env) {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [LEGION, 'serve', '--port', '0'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
