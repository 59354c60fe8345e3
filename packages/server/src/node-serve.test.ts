import { request } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import { serveLocally, type LingerLimits } from './node-serve.js';

const MiB = 1_048_576;

/**
 * A client that goes on sending after the server answered, as one does that was writing when the
 * answer came: over a plain socket, a POST of `before + after` MiB declared; `before` MiB, then,
 * once the answer arrived, a pause of `pauseMs`, then the other `after` MiB. Resolves with the
 * answer's status line once everything was sent, or with the error a write met.
 */
function sendPastAnswer(
  port: number,
  options: { before: number; after: number; pauseMs: number; headers?: string[] },
): Promise<{ statusLine: string; error?: string }> {
  const piece = Buffer.alloc(MiB, 'a');
  return new Promise((resolve) => {
    let received = '';
    // Half-open: the server's end of sending (after its answer) does not end this side's sending.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const statusLine = (): string => received.split('\r\n')[0]!;
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ statusLine: statusLine(), error: error.code ?? String(error) }));
    const sendRest = (left: number): void => {
      if (left === 0) {
        resolve({ statusLine: statusLine() });
        socket.destroy();
      } else
        socket.write(piece, (error) => {
          if (error) resolve({ statusLine: statusLine(), error: (error as NodeJS.ErrnoException).code ?? String(error) });
          else setImmediate(() => sendRest(left - 1));
        });
    };
    let answered = false;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (answered || !received.includes('\r\n\r\n')) return;
      answered = true;
      setTimeout(() => sendRest(options.after), options.pauseMs);
    });
    const length = (options.before + options.after) * MiB;
    socket.write(
      [`POST / HTTP/1.1`, `host: 127.0.0.1:${port}`, `content-length: ${length}`, ...(options.headers ?? []), '', ''].join('\r\n'),
    );
    for (let i = 0; i < options.before; i++) socket.write(piece);
  });
}

/** A server that refuses every body once it has read 4 MiB of it, as the body limit does a chunked body over its limit. */
async function refusingServer(limits?: LingerLimits, headers: Record<string, string> = {}): Promise<{ http: ServerType; port: number }> {
  const refuse = async (request: Request): Promise<Response> => {
    const reader = request.body!.getReader();
    for (let read = 0; read < 4 * MiB;) {
      const { done, value } = await reader.read();
      if (done) break;
      read += value.length;
    }
    void reader.cancel().catch(() => undefined);
    return new Response('too large', { status: 413, headers });
  };
  const http = await serveLocally({ fetch: refuse, port: 0, hostname: '127.0.0.1' }, limits);
  return { http, port: (http.address() as AddressInfo).port };
}

describe('serveLocally closes a connection only once the client has stopped sending (lingering close)', () => {
  let http: ServerType | undefined;
  afterEach(async () => {
    if (http && 'closeAllConnections' in http) http.closeAllConnections();
    await new Promise((resolve) => http?.close(resolve));
    http = undefined;
  });

  it.each([
    ['the answer closes the connection', { connection: 'close' }, []],
    ['the client asked to close', {}, ['connection: close']],
    ['the connection is kept alive', {}, []],
  ])(
    'a client that goes on sending after the early answer meets no reset, and has the answer (%s)',
    async (_case, answerHeaders, requestHeaders) => {
      const served = await refusingServer(undefined, answerHeaders);
      http = served.http;
      // The pause outlasts Hono's own drain of an unread body (500 ms), after which it closes at once.
      const outcomes = await Promise.all(
        [1, 2, 3].map(() => sendPastAnswer(served.port, { before: 6, after: 16, pauseMs: 700, headers: requestHeaders })),
      );
      expect(outcomes).toEqual([1, 2, 3].map(() => ({ statusLine: 'HTTP/1.1 413 Payload Too Large' })));
    },
  );

  it('past its bound of dropped bytes it closes, and goes on serving', async () => {
    const served = await refusingServer({ idleMs: 5_000, totalMs: 30_000, maxBytes: 4 * MiB }, { connection: 'close' });
    http = served.http;
    expect(await sendPastAnswer(served.port, { before: 6, after: 64, pauseMs: 0 })).toEqual({
      statusLine: 'HTTP/1.1 413 Payload Too Large',
      error: expect.stringMatching(/EPIPE|ECONNRESET/),
    });
    expect(await sendPastAnswer(served.port, { before: 6, after: 1, pauseMs: 0 })).toEqual({
      statusLine: 'HTTP/1.1 413 Payload Too Large',
    });
  });

  it('closes a connection whose client went quiet mid-body once it has been idle', async () => {
    const served = await refusingServer({ idleMs: 200, totalMs: 30_000, maxBytes: 512 * MiB }, { connection: 'close' });
    http = served.http;
    const closed = await new Promise<number>((resolve) => {
      const outgoing = request({
        host: '127.0.0.1',
        port: served.port,
        method: 'POST',
        path: '/',
        headers: { 'content-length': String(8 * MiB) },
      });
      outgoing.on('response', (incoming) => {
        incoming.resume();
        // The answer came; the body is never finished: the server must not wait on it forever.
        outgoing.socket?.once('close', () => resolve(incoming.statusCode ?? 0));
      });
      outgoing.on('error', () => undefined);
      outgoing.write(Buffer.alloc(5 * MiB));
    });
    expect(closed).toBe(413);
  });
});
