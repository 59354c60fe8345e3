import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import type { McpServerConfig } from '../../../../team/config/mcp-server-config.js';

const require = createRequire(import.meta.url);

/** The bin entry point of an MCP server package installed from npm (a devDependency of core). */
export function serverBin(packageName: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
  if (!bin) throw new Error(`${packageName} has no bin entry`);
  return join(dirname(manifestPath), bin);
}

/** A stdio server config that runs the package with this very Node (no npx, no network). */
export function stdioServer(packageName: string, args: string[] = [], env: Record<string, string> = {}): McpServerConfig {
  return { command: process.execPath, args: [serverBin(packageName), ...args], env };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface RunningHttpServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * server-everything in its Streamable HTTP mode, reached at 127.0.0.1 on a
 * free port (or the given one, to restart "the same" server). It takes its
 * port from PORT; a port taken in the meantime makes it exit, and then another
 * free port is tried.
 */
export async function startEverythingOverHttp(options: { port?: number } = {}): Promise<RunningHttpServer> {
  let lastError = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = options.port ?? (await freePort());
    const child = spawn(process.execPath, [serverBin('@modelcontextprotocol/server-everything'), 'streamableHttp'], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const ready = await new Promise<boolean>((resolve) => {
      let stderr = '';
      const timer = setTimeout(() => resolve(false), 20_000);
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        if (stderr.includes(`listening on port ${port}`)) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.once('exit', () => {
        clearTimeout(timer);
        lastError = stderr;
        resolve(false);
      });
    });
    if (ready) {
      return {
        url: `http://127.0.0.1:${port}/mcp`,
        process: child,
        stop: () => stopProcess(child),
      };
    }
    await stopProcess(child);
  }
  throw new Error(`server-everything did not start in streamableHttp mode: ${lastError}`);
}

export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Whether a process id still names a live process. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
