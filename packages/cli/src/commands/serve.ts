import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LegionError } from '@legion-collective/core';
import { startServer } from '@legion-collective/server';
import { openLegion, resolveWorkspace } from '../workspace.js';
import { accessTokenFrom } from './access-token-option.js';
import { LOOPBACK, portOf } from './listen-address.js';
import { stdout, stderr } from '../render/terminal-text.js';

declare const LEGION_VERSION: string;

export interface ServeOptions {
  port?: string;
  host?: string;
  open?: boolean;
  token?: string;
  tokenFile?: string;
  workspace?: string;
}

/**
 * The browser app's built files: `dist/web` beside the bundle (the CLI build copies
 * packages/web/dist there), else the web package's own build in a source checkout.
 */
function webDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, '..', 'web'), join(here, 'web'), join(here, '..', '..', '..', 'web', 'dist')]) {
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return undefined;
}

/** Opens the system browser; where there is none (a server, a container), says so and goes on. */
function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => stderr.write(`legion: could not open a browser (${command} is not available); open the URL above yourself.\n`));
    child.unref();
  } catch {
    stderr.write(`legion: could not open a browser; open the URL above yourself.\n`);
  }
}

/** `legion serve`: the browser app and its API over this workspace, until Ctrl-C. */
export async function serveCommand(options: ServeOptions): Promise<number> {
  const port = portOf(options.port);
  const host = options.host ?? '127.0.0.1';
  const token = accessTokenFrom({
    flag: options.token,
    file: options.tokenFile,
    envName: 'LEGION_SERVE_TOKEN',
    env: process.env,
    warn: (line) => stderr.write(`${line}\n`),
  });
  const root = resolveWorkspace(options.workspace);
  const legion = await openLegion({ root });
  let server;
  try {
    server = await startServer({
      legion,
      port,
      host,
      ...(token ? { token } : {}),
      staticDir: webDir(),
      version: typeof LEGION_VERSION === 'string' ? LEGION_VERSION : undefined,
    });
  } catch (error) {
    await legion.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new LegionError('usage', `Port ${port} is in use: give another with --port, or leave it out for a free one.`);
    if (code === 'EADDRNOTAVAIL')
      throw new LegionError('usage', `This machine has no address ${host}: give one of its addresses with --host (default 127.0.0.1).`);
    throw error;
  }
  if (!LOOPBACK.has(host)) {
    stderr.write(
      `legion: warning: serving on ${host}, reachable from other machines; anyone with the URL's token can act as you in this workspace.\n`,
    );
  }
  const url = `${server.url}?token=${server.token}`;
  stdout.write(`Legion is serving ${root} at ${url}\n`);
  stderr.write('Press Ctrl-C to stop.\n');
  // The browser is told by the event stream; whoever started the server sees it here too.
  legion.events.on('config:reloaded', (event) => {
    const live = event.changes.filter((key) => !event.restartNeeded.includes(key));
    if (live.length > 0) stderr.write(`legion: config changed, applies from this message: ${live.join(', ')}\n`);
    if (event.restartNeeded.length > 0)
      stderr.write(`legion: config changed, applies after a restart of legion serve: ${event.restartNeeded.join(', ')}\n`);
  });
  legion.events.on('error:raised', (event) => {
    if (event.code === 'config_invalid') stderr.write(`legion: ${event.message}\n`);
  });
  if (options.open) openBrowser(url);
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  stderr.write('Stopping: ending running turns…\n');
  // Turns are aborted (their ends logged) before the Legion closes its logs.
  await server.close();
  await legion.close();
  return 0;
}
