import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';

// As packages/cli/src/serve-process.test-support.ts does it: a package's tests stay inside its own src/.
const LEGION = fileURLToPath(new URL('../../../cli/dist/legion.js', import.meta.url));

/** A `legion serve` child process: its URL and token once it printed them. */
export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  url: URL;
  token: string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts `legion serve` in `cwd` and resolves once it printed its URL line. */
export function startServe(cwd: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [LEGION, 'serve', '--port', '0', ...args], { cwd, env });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = stdout.match(/^Legion is serving (.+) at (http:\/\/127\.0\.0\.1:\d+\/\?token=([\w-]+))\n/);
      if (match) resolve({ child, url: new URL(match[2]!), token: match[3]!, stderr: () => stderr, exited });
    });
    void exited.then((status) => reject(new Error(`legion serve exited (${status}) before printing its URL: ${stdout}${stderr}`)));
  });
}

/** A JSON request to the served API, with the token; the status and the body as text. */
export function callServe(served: ServeProcess, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: served.url.hostname,
        port: served.url.port,
        method,
        path,
        headers: { authorization: `Bearer ${served.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body !== undefined ? JSON.stringify(body) : undefined);
  });
}

/** The `legion` events of a serve's `/api/events` (server-sent events), and a way to wait for one. */
export interface ServedEvents {
  seen: Array<Record<string, unknown>>;
  until(test: (event: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>>;
  close(): void;
}

export function followServedEvents(served: ServeProcess): ServedEvents {
  const seen: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  const outgoing = request(
    { host: served.url.hostname, port: served.url.port, path: '/api/events', headers: { authorization: `Bearer ${served.token}` } },
    (incoming) => {
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').find((line) => line.startsWith('data: '));
          if (block.includes('event: legion') && data) seen.push(JSON.parse(data.slice(6)) as Record<string, unknown>);
        }
        for (const wake of [...waiters]) wake();
      });
      incoming.on('error', () => undefined);
    },
  );
  outgoing.on('error', () => undefined);
  outgoing.end();
  return {
    seen,
    until: (test, what) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${what}; saw ${seen.map((event) => event.type).join(', ')}`)),
          30_000,
        );
        const check = (): void => {
          const found = seen.find(test);
          if (!found) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
      }),
    close: () => outgoing.destroy(),
  };
}
