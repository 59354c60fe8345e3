import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What one client connection sent the server, message by message (frontend protocol, v3). */
export interface RecordedConnection {
  /** Sent `LISTEN`: the instance's listening connection. */
  listens: boolean;
  /** Round trips: a simple query (`Q`) or the end of an extended one (`S`, Sync) each. */
  roundTrips: number;
  /** The prepared statement of each Bind, in order (`''`: unnamed). */
  binds: string[];
}

export interface WireRecorder {
  /** The database URL through the relay. */
  readonly url: string;
  readonly connections: RecordedConnection[];
  /** Round trips over every connection so far. */
  roundTrips(): number;
  close(): Promise<void>;
}

/**
 * A relay on a unix socket of its own in front of a test database's server, reading what the
 * clients send as it passes, so that a test can count the round trips and see which connection
 * carries which statement. The bytes go through unchanged.
 */
export async function recordWire(url: string): Promise<WireRecorder> {
  // Only the query string: a URL with a user and no host name is not a WHATWG URL.
  const [base, query = ''] = url.split('?');
  const parameters = new URLSearchParams(query);
  const host = parameters.get('host');
  const port = parameters.get('port') ?? '5432';
  if (!host) throw new Error(`recordWire needs a unix-socket URL (?host=<dir>), not ${url}`);
  const dir = mkdtempSync(join(tmpdir(), 'legion-pg-wire-'));
  const connections: RecordedConnection[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection(join(host, `.s.PGSQL.${port}`));
    const recorded: RecordedConnection = { listens: false, roundTrips: 0, binds: [] };
    connections.push(recorded);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    let pending = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      // The startup message has no type byte: a length, then the rest.
      if (!started) {
        if (pending.length < 4) return;
        const length = pending.readInt32BE(0);
        if (pending.length < length) return;
        pending = pending.subarray(length);
        started = true;
      }
      while (pending.length >= 5) {
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        const type = String.fromCharCode(pending[0] ?? 0);
        const body = pending.subarray(5, 1 + length);
        if (type === 'Q') {
          recorded.roundTrips++;
          if (/^\s*LISTEN\b/i.test(cString(body, 0).text)) recorded.listens = true;
        } else if (type === 'S') recorded.roundTrips++;
        else if (type === 'B') recorded.binds.push(cString(body, cString(body, 0).end).text);
        pending = pending.subarray(1 + length);
      }
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', () => upstream.end());
    upstream.on('close', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(join(dir, `.s.PGSQL.${port}`), resolve));
  parameters.set('host', dir);
  return {
    url: `${base}?${parameters.toString()}`,
    connections,
    roundTrips: () => connections.reduce((sum, connection) => sum + connection.roundTrips, 0),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A NUL-terminated string at `start`, and where the next field begins. */
function cString(buffer: Buffer, start: number): { text: string; end: number } {
  const nul = buffer.indexOf(0, start);
  const end = nul < 0 ? buffer.length : nul;
  return { text: buffer.toString('utf8', start, end), end: end + 1 };
}
