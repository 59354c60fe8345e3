import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';

/** How long, and how much, a request's unread body is read and dropped after the server answered it early. */
export interface LingerLimits {
  /** Close once the client has sent nothing for this long. */
  idleMs: number;
  /** Close after this long whatever the client does. */
  totalMs: number;
  /** Close once this much more of the body has been dropped. */
  maxBytes: number;
}

/** nginx's lingering close is 5 s idle, 30 s in all; the body a refused client still sends is dropped as it comes. */
export const LINGER: LingerLimits = { idleMs: 5_000, totalMs: 30_000, maxBytes: 512 * 1_048_576 };

/**
 * Hono's Node server for `fetch` on `hostname:port`, resolved once it listens, with a lingering close.
 *
 * A server that answers before it has read the request's body (413 over a limit, 401 without the
 * token) and then closes the socket at once makes the client's next write meet a reset: the client
 * reports EPIPE or ECONNRESET, and Node's own client drops the answer it had not read yet, so a
 * client is told "connection reset" instead of "over the limit of 6 MiB". Instead, after such an
 * answer the server half-closes, reads and drops what the client still sends until it stops (it
 * read the answer), goes idle, or a bound is passed — and only then closes (RFC 9112 §9.6).
 */
export function serveLocally(
  options: { fetch: (request: Request) => Response | Promise<Response>; port: number; hostname: string },
  limits: LingerLimits = LINGER,
): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const http = serve(options, () => resolve(http));
    http.once('error', reject);
    const current = new WeakMap<Socket, IncomingMessage>();
    http.on('request', (incoming: IncomingMessage) => current.set(incoming.socket, incoming));
    http.on('connection', (socket: Socket) => {
      const destroySoon = socket.destroySoon.bind(socket);
      // Node's server calls this once the answer to a request that ends the connection is written.
      socket.destroySoon = () => {
        const incoming = current.get(socket);
        if (incoming === undefined || incoming.complete || incoming.destroyed) destroySoon();
        else linger(socket, incoming, limits, destroySoon);
      };
    });
  });
}

const lingering = new WeakSet<Socket>();

function linger(socket: Socket, incoming: IncomingMessage, limits: LingerLimits, close: () => void): void {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  // The answer, then this side's end: the client sees both while what it still sends is dropped.
  socket.end();
  let dropped = 0;
  let idle: NodeJS.Timeout;
  const finish = (graceful: boolean): void => {
    clearTimeout(idle);
    clearTimeout(total);
    incoming.off('data', onData);
    // Gracefully once all was read (a plain close); past a bound, at once.
    if (graceful) close();
    else socket.destroy();
  };
  const total = setTimeout(() => finish(false), limits.totalMs);
  const restartIdle = (): void => {
    clearTimeout(idle);
    idle = setTimeout(() => finish(false), limits.idleMs);
  };
  const onData = (chunk: Buffer): void => {
    dropped += chunk.length;
    if (dropped > limits.maxBytes) finish(false);
    else restartIdle();
  };
  restartIdle();
  // Whoever was reading the body (the body-limit check) has given up on it: the rest is only dropped.
  incoming.removeAllListeners('data');
  incoming.on('data', onData);
  incoming.once('end', () => finish(true));
  socket.once('end', () => finish(true));
  socket.once('close', () => finish(true));
  incoming.resume();
}
