import { once, getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { nodeHttpFetch } from './node-http-fetch.js';
const servers: Server[] = [];
afterEach(() => { for (const s of servers.splice(0)) { s.closeAllConnections(); s.close(); } });
async function serve(h: Parameters<typeof createServer>[1]): Promise<string> {
  const s = createServer(h!); servers.push(s); s.listen(0, '127.0.0.1'); await once(s, 'listening');
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}
describe.each([['node', nodeHttpFetch], ['undici', (i: string, init?: RequestInit) => globalThis.fetch(i, init)]])('%s', (_n, f) => {
  it('listeners', async () => {
    const url = await serve((q, s) => {
      if (q.url === '/gz') s.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('hello'));
      else if (q.url === '/204') s.writeHead(204).end();
      else if (q.url === '/old') s.writeHead(307, { location: '/new' }).end();
      else if (q.url === '/head') s.writeHead(200, {'content-length': '5'}).end();
      else s.end('plain');
    });
    for (const path of ['/plain', '/gz', '/204', '/old']) {
      const c = new AbortController();
      const r = await f(url + path, { signal: c.signal });
      await r.text();
      await new Promise((r) => setImmediate(r));
      console.log(_n, path, 'listeners', getEventListeners(c.signal, 'abort').length);
    }
    const c = new AbortController();
    const r = await f(url + '/head', { signal: c.signal, method: 'HEAD' });
    await new Promise((r) => setImmediate(r));
    console.log(_n, 'HEAD listeners', getEventListeners(c.signal, 'abort').length, r.body === null);
    const c2 = new AbortController();
    const r2 = await f(url + '/plain', { signal: c2.signal });
    await r2.body!.cancel();
    console.log(_n, 'cancel listeners', getEventListeners(c2.signal, 'abort').length);
  }, 5000);
});
