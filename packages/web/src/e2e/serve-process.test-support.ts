import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built binary, as users run it; its build holds the web app (dist/web). */
export const LEGION = fileURLToPath(new URL('../../../cli/dist/legion.js', import.meta.url));
const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));

/** Debian's `chromium` (or CHROMIUM_PATH); null when this machine has none, and the browser tests skip. */
export function findChromium(): string | null {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  for (const candidate of candidates) if (candidate && existsSync(candidate)) return candidate;
  const which = spawnSync('which', ['chromium'], { encoding: 'utf8' });
  const found = which.stdout.trim();
  return which.status === 0 && found !== '' ? found : null;
}

/** Where screenshots go: `.ci/out/screenshots/` under CI, else a temp folder. */
export function screenshotDir(): string {
  const ci = join(REPOSITORY, '.ci/out');
  const dir = existsSync(ci) ? join(ci, 'screenshots') : mkdtempSync(join(tmpdir(), 'legion-web-screenshots-'));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Runs `legion ARGS` to the end and returns its exit status and output (async: aimock runs in this process). */
export function legion(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LEGION, ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs `legion ARGS` to the end, blocking (for commands that need no model). */
export function legionSync(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [LEGION, ...args], { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A fresh workspace (`legion init`) whose agents talk to `mockUrl` (aimock) through the real SDKs. */
export function mockedWorkspace(mockUrl: string): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'legion-web-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '1',
    XDG_CONFIG_HOME: join(dir, '.xdg'),
    ANTHROPIC_API_KEY: 'test',
    OPENAI_API_KEY: 'test',
    ANTHROPIC_BASE_URL: mockUrl,
    OPENAI_BASE_URL: `${mockUrl}/v1`,
  };
  const init = legionSync(['init'], dir, env);
  if (init.status !== 0) throw new Error(`legion init failed: ${init.stderr}`);
  useModel(dir, 'coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mockUrl });
  useModel(dir, 'developer', { provider: 'openai', model: 'gpt-test', baseURL: `${mockUrl}/v1` });
  return { dir, env };
}

export function useModel(dir: string, participant: string, model: Record<string, unknown>): void {
  const file = join(dir, '.legion/collective/participants', `${participant}.json`);
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), model }, null, 2));
}

export interface Serve {
  /** `http://127.0.0.1:PORT/?token=TOKEN`, as printed. */
  url: string;
  origin: string;
  token: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** The line `legion serve` prints when it listens (the contract's; tests parse it). */
const SERVING = /Legion is serving .* at (http:\/\/127\.0\.0\.1:\d+)\/\?token=([A-Za-z0-9_-]+)/;

/** Starts `legion serve --port 0` in `dir` and resolves once it printed its URL. */
export function startServe(dir: string, env: NodeJS.ProcessEnv, args: readonly string[] = []): Promise<Serve> {
  const child = spawn(process.execPath, [LEGION, 'serve', '--port', '0', ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let started = false;
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const match = started ? null : SERVING.exec(output);
      if (!match) return;
      started = true;
      const origin = match[1]!;
      const token = match[2]!;
      resolve({
        url: `${origin}/?token=${token}`,
        origin,
        token,
        child,
        output: () => output,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('exit', (code) => {
      if (!started) reject(new Error(`legion serve exited (${code}) before printing its URL:\n${output}`));
    });
  });
}
