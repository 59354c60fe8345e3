import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One code-server with its own user data and extensions, in its own process group. */
export interface CodeServer {
  url: string;
  /** What it printed, for a failing test's message. */
  output(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export const PROPOSED_API_EXTENSION = 'legion-e2e.e2e-chat-host';

/** Installs these .vsix files into a fresh extensions folder and starts code-server on `folder`. */
export async function startCodeServer(options: {
  bin: string;
  vsix: readonly string[];
  folder: string;
  env: NodeJS.ProcessEnv;
  settings?: Record<string, unknown>;
}): Promise<CodeServer> {
  const home = mkdtempSync(join(tmpdir(), 'legion-code-server-'));
  const userData = join(home, 'user-data');
  const extensions = join(home, 'extensions');
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(
    join(userData, 'User', 'settings.json'),
    JSON.stringify({
      'workbench.startupEditor': 'none',
      'telemetry.telemetryLevel': 'off',
      'security.workspace.trust.enabled': false,
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'workbench.tips.enabled': false,
      'workbench.welcomePage.walkthroughs.openOnInstall': false,
      'chat.setupFromDialog': false,
      ...options.settings,
    }),
  );
  // Its own config folder: code-server would otherwise write ~/.config/code-server/config.yaml.
  const env = { ...options.env, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data') };
  const install = spawnSync(
    options.bin,
    ['--extensions-dir', extensions, '--user-data-dir', userData, ...options.vsix.flatMap((file) => ['--install-extension', file])],
    { env, encoding: 'utf8', timeout: 120_000 },
  );
  if (install.status !== 0) throw new Error(`code-server --install-extension failed: ${install.stdout}${install.stderr}`);
  const port = await freePort();
  const child: ChildProcess = spawn(
    options.bin,
    [
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--user-data-dir',
      userData,
      '--extensions-dir',
      extensions,
      '--enable-proposed-api',
      PROPOSED_API_EXTENSION,
      options.folder,
    ],
    { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`code-server exited (${child.exitCode}) before it was healthy:\n${output}`);
    const healthy = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) throw new Error(`code-server was not healthy within 60 s:\n${output}`);
    // Polling /healthz: code-server announces readiness on no event we can wait for.
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          // Already gone.
        }
        const killed = setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }, 5_000);
        await exited;
        clearTimeout(killed);
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export function codeServerBin(): string | null {
  const bin = process.env['LEGION_CODE_SERVER_BIN'];
  return bin && existsSync(bin) ? bin : null;
}
