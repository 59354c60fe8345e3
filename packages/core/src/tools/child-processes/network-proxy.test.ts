import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { NetworkProxy } from './network-proxy.js';

// The proxy as a sandboxed command's bridge meets it: bytes on its Unix socket. No sandbox needed,
// so this runs where bubblewrap cannot (shell-network.test.ts proves the whole route with it).
describe('the network proxy of sandboxed commands', () => {
  let server: Server;
  let port: number;
  let proxy: NetworkProxy;

  beforeAll(async () => {
    server = createServer((request, response) =>
      response.end(
        `reached ${request.method} ${request.url} host=${request.headers.host} auth=${request.headers['proxy-authorization'] ?? 'none'}`,
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    proxy = new NetworkProxy();
  });
  afterEach(() => proxy.close());

  /** Sends `request` on the socket and returns all the proxy (and whatever it tunnels to) sends back until it closes. */
  function exchange(socket: string, request: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const client = connect(socket);
      let received = '';
      client.on('data', (chunk) => (received += chunk.toString()));
      client.on('error', reject);
      client.on('close', () => resolve(received));
      client.write(request);
    });
  }

  it('forwards an absolute-form request to an allowed host, refuses any other with 403 naming it', async () => {
    const socket = proxy.socketFor(['localhost']);
    const allowed = await exchange(
      socket,
      `GET http://localhost:${port}/path?q=1 HTTP/1.1\r\nHost: localhost:${port}\r\nProxy-Authorization: x\r\nConnection: close\r\n\r\n`,
    );
    expect(allowed).toMatch(/^HTTP\/1\.1 200 OK/);
    // The proxy's own header stays with the proxy.
    expect(allowed).toContain(`reached GET /path?q=1 host=localhost:${port} auth=none`);
    const refused = await exchange(socket, `GET http://127.0.0.1:${port}/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(refused).toMatch(/^HTTP\/1\.1 403 legion: 127\.0\.0\.1 is not in sandboxNetwork\.allow\r\n/);
    expect(refused).toContain('\r\n\r\nlegion: 127.0.0.1 is not in sandboxNetwork.allow\n');
    // An origin-form request is not a proxy request: nothing to check a host against.
    expect(await exchange(socket, 'GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('tunnels CONNECT to an allowed host; refuses another, and an authority that is not host:port', async () => {
    const socket = proxy.socketFor(['localhost']);
    const tunnelled = await exchange(
      socket,
      `CONNECT localhost:${port} HTTP/1.1\r\n\r\nGET /through HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(tunnelled).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
    expect(tunnelled).toContain('reached GET /through host=x');
    expect(await exchange(socket, `CONNECT [::1]:${port} HTTP/1.1\r\n\r\n`)).toMatch(
      /^HTTP\/1\.1 403 legion: ::1 is not in sandboxNetwork\.allow/,
    );
    expect(await exchange(socket, `CONNECT 127.1:${port} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403 legion: 127\.0\.0\.1 is not/);
    for (const authority of [`user@localhost:${port}`, 'localhost', `localhost:${port}/x`, 'localhost:70000'])
      expect(await exchange(socket, `CONNECT ${authority} HTTP/1.1\r\n\r\n`), authority).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('says when an allowed host cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const unused = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const socket = proxy.socketFor(['localhost']);
    expect(await exchange(socket, `CONNECT localhost:${unused} HTTP/1.1\r\n\r\n`)).toMatch(
      new RegExp(`^HTTP/1\\.1 502 Bad Gateway[\\s\\S]*legion: cannot reach localhost:${unused} \\(ECONNREFUSED\\)`),
    );
  });

  it('one socket per allow-list; each keeps its own', async () => {
    const localhostOnly = proxy.socketFor(['localhost']);
    const other = proxy.socketFor(['registry.npmjs.org']);
    expect(proxy.socketFor(['LOCALHOST'])).toBe(localhostOnly);
    expect(other).not.toBe(localhostOnly);
    expect(await exchange(other, `CONNECT localhost:${port} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403 legion: localhost is not/);
  });

  it('removes its sockets when closed, and those of a Legion that died without cleaning up', async () => {
    const socket = proxy.socketFor(['localhost']);
    await proxy.close();
    expect(existsSync(dirname(socket))).toBe(false);

    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const orphan = `/tmp/legion-proxy-${dead}-abcdef`;
    const living = `/tmp/legion-proxy-${process.pid}-abcdef`;
    mkdirSync(orphan, { recursive: true });
    mkdirSync(living, { recursive: true });
    proxy = new NetworkProxy();
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(living)).toBe(true);
    await new NetworkProxy().close();
    spawnSync('rmdir', [living]);
  });
});
