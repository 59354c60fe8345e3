import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LEGION } from '../legion-process.test-support.js';

interface Served {
  child: ChildProcessWithoutNullStreams;
  port: number;
  token: string;
  stderr(): string;
}

interface Answer {
  status: number;
  text: string;
}

/** `legion serve ARGS` in `cwd`, once it printed its URL line. */
function serve(cwd: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<Served> {
  const child = spawn(process.execPath, [LEGION, 'serve', ...args], { cwd, env });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = stdout.match(/ at http:\/\/127\.0\.0\.1:(\d+)\/\?token=([\w-]+)\n/);
      if (match) resolve({ child, port: Number(match[1]), token: match[2]!, stderr: () => stderr });
    });
    child.once('close', (status) => reject(new Error(`legion serve exited (${status}) before printing its URL: ${stdout}${stderr}`)));
  });
}

/** A request with a small JSON body (or none). */
function call(served: Served, method: string, path: string, body?: unknown, token = served.token): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port: served.port,
        method,
        path,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/**
 * POSTs `megabytes` MiB of a JSON string as the body, written 1 MiB at a time as the socket takes
 * it (the test holds 1 MiB, never the body): with a Content-Length, or chunked without one.
 * Resolves with the answer, which may come before the body was all sent.
 */
function upload(served: Served, path: string, megabytes: number, options: { chunked: boolean; token?: string }): Promise<Answer> {
  const piece = Buffer.alloc(1_048_576, 'a');
  const open = Buffer.from('{"text":"');
  const close = Buffer.from('"}');
  const length = open.length + megabytes * piece.length + close.length;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port: served.port,
        method: 'POST',
        path,
        headers: {
          authorization: `Bearer ${options.token ?? served.token}`,
          'content-type': 'application/json',
          ...(options.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(length) }),
        },
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text }));
        incoming.on('error', () => resolve({ status: incoming.statusCode ?? 0, text }));
      },
    );
    // The server stops reading once it has answered (and closes past a bound): what is left unsent is not an error here.
    let answered = false;
    outgoing.on('response', () => (answered = true));
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    // One piece at a time, each once the last has gone, stopping at the answer: a client that writes on
    // after the server answered (and, after a short drain, closed) meets EPIPE before it reads the answer.
    let written = 0;
    const pump = (): void => {
      if (answered || outgoing.destroyed) return;
      if (written === megabytes) {
        outgoing.end(close);
        return;
      }
      written++;
      outgoing.write(piece, () => setImmediate(pump));
    };
    outgoing.write(open);
    if (options.chunked) {
      pump();
      return;
    }
    // A declared length is refused on the headers alone: the body is sent only if no answer comes first
    // (as a server that reads bodies whole would need), never raced against one.
    outgoing.flushHeaders();
    const waited = setTimeout(pump, 1000);
    outgoing.on('response', () => clearTimeout(waited));
  });
}

/** The process's resident memory: now and at its peak (`VmRSS`, `VmHWM` of /proc/PID/status), in MiB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'))![1]) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

describe('legion serve bounds every body at the door', () => {
  let dir: string;
  let served: Served | undefined;
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg'), LEGION_SERVE_TOKEN: '' });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-serve-limits-'));
    const init = spawnSync(process.execPath, [LEGION, 'init'], { cwd: dir, encoding: 'utf8', env: env() });
    expect(init.status).toBe(0);
  });
  afterEach(() => {
    served?.child.kill('SIGKILL');
    served = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 4 × 150 MB bodies (declared and chunked) with 413 naming the limit, and its memory stays bounded', async () => {
    served = await serve(dir, env());
    const session = JSON.parse((await call(served, 'POST', '/api/sessions', {})).text) as { id: string };
    const before = memoryOf(served.child.pid!);
    const answers = await Promise.all([
      upload(served, `/api/sessions/${session.id}/messages`, 150, { chunked: false }),
      upload(served, `/api/sessions/${session.id}/messages`, 150, { chunked: true }),
      upload(served, '/api/sessions', 150, { chunked: false }),
      upload(served, '/api/sessions', 150, { chunked: true }),
    ]);
    const after = memoryOf(served.child.pid!);
    for (const answer of answers) {
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.text)).toMatchObject({
        error: { code: 'payload_too_large', message: expect.stringMatching(/over the limit of [\d.]+ (MiB|KiB) \(\d+ bytes\)/) },
      });
    }
    expect(JSON.parse(answers[0]!.text).error.message).toContain('limits.maxMessageBytes');
    // Reading them whole took the server from ~100 MB to 1.37 GB; bounded, each is read to at most 6 MiB.
    expect(after.peak - before.rss).toBeLessThan(200);
    // And it goes on serving.
    expect((await call(served, 'GET', '/api/workspace')).status).toBe(200);
  }, 120_000);

  it('refuses an unauthenticated 150 MB body with 401 before reading it', async () => {
    served = await serve(dir, env());
    const before = memoryOf(served.child.pid!);
    const answer = await upload(served, '/api/sessions', 150, { chunked: true, token: 'wrong-token-wrong-token' });
    expect(answer.status).toBe(401);
    expect(memoryOf(served.child.pid!).peak - before.rss).toBeLessThan(100);
  }, 120_000);

  it('refuses a message over limits.maxMessageBytes at once with 400 naming its size and the limit, instead of 202', async () => {
    writeFileSync(join(dir, '.legion/config.json'), JSON.stringify({ version: 1, limits: { maxMessageBytes: 1000 } }));
    served = await serve(dir, env());
    const session = JSON.parse((await call(served, 'POST', '/api/sessions', {})).text) as { id: string };
    const refused = await call(served, 'POST', `/api/sessions/${session.id}/messages`, { text: 'x'.repeat(1500) });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toMatchObject({
      error: { code: 'bad_request', message: expect.stringContaining('is 1.5 KB (1500 bytes); the limit is 1000 bytes.') },
    });
    // Past the door's bound for this limit (6 × 1000 + 64 KiB): 413, unread.
    const door = await upload(served, `/api/sessions/${session.id}/messages`, 1, { chunked: false });
    expect(door.status).toBe(413);
    // An answer to a question is a message too.
    const answer = await call(served, 'POST', '/api/questions/q-1/answer', { text: 'y'.repeat(1500) });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text).error.message).toContain(
      'the answer to q-1 is 1.5 KB (1500 bytes); the limit is 1000 bytes (limits.maxMessageBytes)',
    );
  }, 60_000);
});

describe('legion serve takes its token without showing it in the process list', () => {
  let dir: string;
  let served: Served | undefined;
  const token = 'secret-token-of-forty-characters-0123456';
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg'), LEGION_SERVE_TOKEN: '' });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-serve-token-'));
    expect(spawnSync(process.execPath, [LEGION, 'init'], { cwd: dir, encoding: 'utf8', env: env() }).status).toBe(0);
  });
  afterEach(() => {
    served?.child.kill('SIGKILL');
    served = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const commandLine = (pid: number): string => readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');

  it('from --token-file: the token works, and is not on its command line', async () => {
    writeFileSync(join(dir, 'token.txt'), `${token}\n`, { mode: 0o600 });
    served = await serve(dir, env(), ['--token-file', join(dir, 'token.txt')]);
    expect(served.token).toBe(token);
    expect(commandLine(served.child.pid!)).not.toContain(token);
    expect((await call(served, 'GET', '/api/workspace')).status).toBe(200);
    expect((await call(served, 'GET', '/api/workspace', undefined, 'another-token-another-token')).status).toBe(401);
    expect(served.stderr()).not.toContain('warning');
  });

  it('from LEGION_SERVE_TOKEN: the token works, and is not on its command line', async () => {
    served = await serve(dir, { ...env(), LEGION_SERVE_TOKEN: token });
    expect(served.token).toBe(token);
    expect(commandLine(served.child.pid!)).not.toContain(token);
    expect((await call(served, 'GET', '/api/workspace')).status).toBe(200);
  });

  it('from --token: works, and warns that the process list shows it, naming the other ways', async () => {
    served = await serve(dir, env(), ['--token', token]);
    expect((await call(served, 'GET', '/api/workspace')).status).toBe(200);
    expect(served.stderr()).toContain(
      'warning: --token is visible to every user of this machine in the process list (ps); give the token with LEGION_SERVE_TOKEN or --token-file PATH instead.',
    );
  });

  it('documents the ways in --help', () => {
    const help = spawnSync(process.execPath, [LEGION, 'serve', '--help'], { cwd: dir, encoding: 'utf8', env: env() }).stdout;
    expect(help).toContain('--token-file <path>');
    expect(help).toContain('LEGION_SERVE_TOKEN');
    expect(help).toContain('process list');
  });
});
