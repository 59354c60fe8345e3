import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresSessionBackend } from './PostgresSessionBackend.js';

/**
 * A server a cloned repository's config could name: it speaks enough of PostgreSQL's wire
 * protocol to ask for a cleartext password, and keeps what it is sent.
 */
async function passwordCatcher(): Promise<{ port: number; received: string[]; close(): Promise<void> }> {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    let buffer = Buffer.alloc(0);
    let started = false;
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!started && buffer.length >= 4 && buffer.length >= buffer.readInt32BE(0)) {
        buffer = buffer.subarray(buffer.readInt32BE(0));
        started = true;
        // AuthenticationCleartextPassword.
        socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]));
      }
      if (started && buffer.length >= 5 && buffer[0] === 0x70 && buffer.length >= 1 + buffer.readInt32BE(1)) {
        received.push(buffer.subarray(5, buffer.readInt32BE(1)).toString('utf8').replace(/\0$/, ''));
        socket.destroy();
      }
    });
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    received,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a database URL from the workspace file', () => {
  let catcher: Awaited<ReturnType<typeof passwordCatcher>>;
  let folder: string;
  const saved = { PGPASSWORD: process.env.PGPASSWORD, PGPASSFILE: process.env.PGPASSFILE };
  beforeEach(async () => {
    catcher = await passwordCatcher();
    folder = mkdtempSync(join(tmpdir(), 'legion-pgpass-'));
    process.env.PGPASSWORD = 'the-users-own-password';
    process.env.PGPASSFILE = join(folder, 'pgpass');
  });
  afterEach(async () => {
    await catcher.close();
    rmSync(folder, { recursive: true, force: true });
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  async function connect(urlFromWorkspaceFile: boolean): Promise<unknown> {
    const backend = new PostgresSessionBackend({ url: `postgres://legion@127.0.0.1:${catcher.port}/legion`, urlFromWorkspaceFile });
    try {
      return await backend.ready().then(
        () => undefined,
        (error: unknown) => error,
      );
    } finally {
      await backend.close();
    }
  }

  it("never sends the user's PGPASSWORD to the server it names, and says how to give that server a password", async () => {
    const error = await connect(true);
    expect(catcher.received).toEqual([]);
    expect(String(error)).toContain('gets a password only from ~/.pgpass');
    expect(String(error)).toContain(`127.0.0.1:${catcher.port}:legion:legion:<password>`);
    expect(String(error)).toContain('LEGION_DATABASE_URL');
  });

  it('sends only the ~/.pgpass password for that very host, even while PGPASSWORD is set', async () => {
    writeFileSync(
      process.env.PGPASSFILE!,
      `127.0.0.1:${catcher.port + 1}:*:*:for-another-port\n127.0.0.1:${catcher.port}:legion:legion:for-this-host\n`,
      { mode: 0o600 },
    );
    await connect(true);
    expect(catcher.received).toEqual(['for-this-host']);
  });

  it('a URL of the user (global config, LEGION_DATABASE_URL) still takes PGPASSWORD', async () => {
    await connect(false);
    expect(catcher.received).toEqual(['the-users-own-password']);
  });
});
