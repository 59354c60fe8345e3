import { spawn, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LEGION } from '../legion-process.test-support.js';
import { followServedEvents, type ServeProcess } from '../serve-process.test-support.js';

const ORACLE = {
  id: 'oracle',
  type: 'mock',
  name: 'Oracle',
  responses: [
    { trigger: '/^hold/', response: 'too late', delayMs: 60_000 },
    { trigger: 'ping', response: 'pong' },
  ],
  fallback: 'no idea',
};

/** A GET or POST through node:http, with the token; the body as text. */
function call(
  served: ServeProcess,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: served.url.hostname,
        port: served.url.port,
        method,
        path,
        headers: {
          authorization: `Bearer ${served.token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text, headers: incoming.headers }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body !== undefined ? JSON.stringify(body) : undefined);
  });
}

describe('legion serve, as a real process', () => {
  let dir: string;
  let served: ServeProcess | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-serve-'));
  });
  afterEach(() => {
    served?.child.kill('SIGKILL');
    served = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (): NodeJS.ProcessEnv => ({ ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg'), LEGION_SERVE_TOKEN: '' });
  const legionSync = (args: string[]): string => {
    const result = spawnSync(process.execPath, [LEGION, ...args], { cwd: dir, encoding: 'utf8', env: env() });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return result.stdout;
  };

  /** Starts `legion serve` and resolves once it printed its URL line. */
  function serve(args: string[] = [], extraEnv: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
    const child = spawn(process.execPath, [LEGION, 'serve', ...args], { cwd: dir, env: { ...env(), ...extraEnv } });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
    return new Promise((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = stdout.match(/^Legion is serving (.+) at (http:\/\/127\.0\.0\.1:\d+\/\?token=([\w-]+))\n/);
        if (match) resolve((served = { child, url: new URL(match[2]!), token: match[3]!, stderr: () => stderr, exited }));
      });
      void exited.then((status) => reject(new Error(`legion serve exited (${status}) before printing its URL: ${stdout}${stderr}`)));
    });
  }

  it('prints the URL line with a token, serves the API and the page, and stops cleanly on Ctrl-C', async () => {
    legionSync(['init']);
    const server = await serve();
    expect(server.url.searchParams.get('token')).toMatch(/^[\w-]{43}$/);
    const workspace = await call(server, 'GET', '/api/workspace');
    expect(workspace.status).toBe(200);
    expect(JSON.parse(workspace.text)).toMatchObject({ root: dir });
    expect((await call(server, 'GET', '/api/workspace', undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
    const exchange = await call(server, 'GET', `/?token=${server.token}`, undefined, { authorization: '' });
    expect(exchange.status).toBe(302);
    const page = await call(server, 'GET', '/', undefined, { cookie: String(exchange.headers['set-cookie']).split(';')[0]! });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<html/i);
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
    expect(server.stderr()).toContain('Stopping');
  });

  it('shows a `legion run` in another process live on its event stream, in a session created after it started', async () => {
    legionSync(['init']);
    writeFileSync(join(dir, '.legion/collective/participants/oracle.json'), JSON.stringify(ORACLE));
    const server = await serve(['--port', '0']);
    const stream = followServedEvents(server);
    const run = spawnSync(process.execPath, [LEGION, 'run', '--to', 'oracle', '--new-session', 'ping'], {
      cwd: dir,
      encoding: 'utf8',
      env: env(),
    });
    expect(run.stdout.trim()).toBe('pong');
    const reply = await stream.until(
      (event) => event.type === 'message:sent' && event.remote === true && event.author === 'oracle',
      "the oracle's reply from the other process",
    );
    expect(reply).toMatchObject({
      conversationId: 'user__oracle',
      message: { role: 'assistant', content: [{ type: 'text', text: 'pong' }] },
    });
    expect(stream.seen.some((event) => event.type === 'message:sent' && event.remote === true && event.author === 'user')).toBe(true);
    stream.close();
  });

  it('on Ctrl-C ends its running turn and frees the conversation: a later run in it works', async () => {
    legionSync(['init']);
    writeFileSync(join(dir, '.legion/collective/participants/oracle.json'), JSON.stringify(ORACLE));
    const server = await serve();
    const stream = followServedEvents(server);
    const session = JSON.parse((await call(server, 'POST', '/api/sessions', {})).text) as { id: string };
    expect((await call(server, 'POST', `/api/sessions/${session.id}/messages`, { text: 'hold on', to: 'oracle' })).status).toBe(202);
    await stream.until((event) => event.type === 'turn:start', 'the turn to start');
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
    stream.close();
    const after = spawnSync(process.execPath, [LEGION, 'run', '--to', 'oracle', '--session', session.id, 'ping'], {
      cwd: dir,
      encoding: 'utf8',
      env: env(),
      timeout: 20_000,
    });
    expect(after.stdout.trim()).toBe('pong');
    expect(after.status).toBe(0);
    const log = legionSync(['log', '--session', session.id, 'user__oracle']);
    expect(log).toContain('hold on');
    expect(log).toContain('pong');
  });

  it('--open on a machine without a browser says so and serves anyway', async () => {
    legionSync(['init']);
    // No xdg-open (or open) on this PATH: launching the browser fails.
    const server = await serve(['--open'], { PATH: join(dir, 'no-bin') });
    expect((await call(server, 'GET', '/api/workspace')).status).toBe(200);
    await expect.poll(() => server.stderr()).toContain('could not open a browser');
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
  });

  it('refuses a port that is not one, naming the fix', () => {
    legionSync(['init']);
    const result = spawnSync(process.execPath, [LEGION, 'serve', '--port', 'eighty'], { cwd: dir, encoding: 'utf8', env: env() });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('--port eighty is not a port');
  });

  it("answers a question of a turn in another OS process from the API, once: that process's turn goes on with the answer", async () => {
    legionSync(['init']);
    const server = await serve();
    const stream = followServedEvents(server);
    const asker = spawn(process.execPath, [fileURLToPath(new URL('../__fixtures__/ask-and-wait.mjs', import.meta.url)), dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    asker.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const ended = new Promise<number | null>((resolve) => asker.on('close', resolve));
    try {
      const asked = await stream.until((event) => event.type === 'question:asked' && event.remote === true, "the other process's question");
      const listed = JSON.parse((await call(server, 'GET', '/api/questions')).text) as {
        questions: Array<{ id: string; from: string; text: string }>;
      };
      expect(listed.questions).toEqual([expect.objectContaining({ id: asked.questionId, from: 'coordinator', text: 'Which port?' })]);
      const answered = await call(server, 'POST', `/api/questions/${String(asked.questionId)}/answer`, { text: '8080' });
      expect(JSON.parse(answered.text)).toEqual({ status: 'answered' });
      expect(await ended).toBe(0);
      expect(printed).toContain('success: Using 8080');
      const again = await call(server, 'POST', `/api/questions/${String(asked.questionId)}/answer`, { text: '9090' });
      expect(again.status).toBe(409);
      expect(JSON.parse((await call(server, 'GET', '/api/questions')).text)).toEqual({ questions: [] });
    } finally {
      asker.kill('SIGKILL');
      stream.close();
    }
  });

  it('approves a tool call of a turn in another OS process from the API, once: that process runs the tool', async () => {
    legionSync(['init']);
    const server = await serve();
    const stream = followServedEvents(server);
    const writer = spawn(process.execPath, [fileURLToPath(new URL('../__fixtures__/write-and-wait.mjs', import.meta.url)), dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    writer.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const ended = new Promise<number | null>((resolve) => writer.on('close', resolve));
    try {
      const requested = await stream.until(
        (event) => event.type === 'approval:requested' && event.remote === true,
        "the other process's approval request",
      );
      const session = String(requested.sessionId);
      const pending = JSON.parse((await call(server, 'GET', `/api/sessions/${session}/approvals`)).text) as {
        approvals: Array<{ id: string; tool: string; chain: string[] }>;
      };
      expect(pending.approvals).toEqual([
        expect.objectContaining({ id: requested.requestId, tool: 'file_write', chain: ['user', 'coordinator'] }),
      ]);
      const answered = await call(server, 'POST', `/api/sessions/${session}/approvals`, {
        answers: [{ id: requested.requestId, decision: 'approve' }],
      });
      expect(JSON.parse(answered.text)).toEqual({ status: 'answered' });
      expect(await ended).toBe(0);
      expect(printed).toContain('success: wrote it');
      expect(readFileSync(join(dir, 'approved.txt'), 'utf8')).toBe('written once');
      const again = await call(server, 'POST', `/api/sessions/${session}/approvals`, {
        answers: [{ id: requested.requestId, decision: 'reject' }],
      });
      expect(again.status).toBe(409);
    } finally {
      writer.kill('SIGKILL');
      stream.close();
    }
  });
});
