import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteFetch } from './remote-fetch.js';

/** A server on 127.0.0.1 that records each request's headers and answers with `respond`. */
async function serve(
  respond: (path: string, response: ServerResponse) => void,
): Promise<{ origin: string; seen: IncomingHttpHeaders[]; server: Server }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    respond(request.url ?? '/', response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

describe('the fetch a remote agent is reached with', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("follows a redirect to another host without the first host's credentials", async () => {
    const elsewhere = await serve((_path, response) => response.end('{"name":"moved"}'));
    const listed = await serve((_path, response) => {
      response.writeHead(302, { location: `${elsewhere.origin}/card.json` });
      response.end();
    });
    servers.push(elsewhere.server, listed.server);
    const remoteFetch = createRemoteFetch({
      headersByOrigin: { [listed.origin]: { Authorization: 'Bearer s3cret' } },
      maxResponseBytes: 1000,
      maxStreamBytes: 1000,
      idleTimeoutMs: 5000,
    });

    const response = await remoteFetch(`${listed.origin}/card.json`);

    expect(await response.text()).toBe('{"name":"moved"}');
    expect(listed.seen[0]?.['authorization']).toBe('Bearer s3cret');
    expect(elsewhere.seen[0]?.['authorization']).toBeUndefined();
  });

  it('refuses a URL that is not http or https, a redirect to one included', async () => {
    const listed = await serve((_path, response) => {
      response.writeHead(302, { location: 'file:///etc/passwd' });
      response.end();
    });
    servers.push(listed.server);
    const remoteFetch = createRemoteFetch({ headersByOrigin: {}, maxResponseBytes: 1000, maxStreamBytes: 1000, idleTimeoutMs: 5000 });

    await expect(remoteFetch('file:///etc/passwd')).rejects.toMatchObject({ code: 'remote_url_refused' });
    await expect(remoteFetch(`${listed.origin}/card.json`)).rejects.toMatchObject({ code: 'remote_url_refused' });
  });

  it('stops a body past its bound (a stream has its own), and one that goes silent', async () => {
    const remote = await serve((path, response) => {
      if (path === '/json') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('x'.repeat(1500));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (path === '/stream') response.end('x'.repeat(1500));
      else if (path === '/long-stream') response.end('x'.repeat(5000));
      else response.write('data: {}\n\n'); // …and nothing more, the connection left open
    });
    servers.push(remote.server);
    const remoteFetch = createRemoteFetch({ headersByOrigin: {}, maxResponseBytes: 1000, maxStreamBytes: 2000, idleTimeoutMs: 300 });

    await expect((await remoteFetch(`${remote.origin}/json`)).text()).rejects.toMatchObject({ code: 'remote_too_large' });
    expect(await (await remoteFetch(`${remote.origin}/stream`)).text()).toHaveLength(1500);
    await expect((await remoteFetch(`${remote.origin}/long-stream`)).text()).rejects.toMatchObject({ code: 'remote_too_large' });
    await expect((await remoteFetch(`${remote.origin}/silent`)).text()).rejects.toMatchObject({ code: 'remote_timeout' });
  });

  it("ends a request when its access's signal is aborted (a card read for a turn that is cancelled)", async () => {
    let arrived: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => (arrived = resolve));
    const remote = await serve(() => arrived()); // …and never answers
    servers.push(remote.server);
    const stop = new AbortController();
    const remoteFetch = createRemoteFetch({
      headersByOrigin: {},
      maxResponseBytes: 1000,
      maxStreamBytes: 1000,
      idleTimeoutMs: 60_000,
      signal: stop.signal,
    });
    const pending = remoteFetch(`${remote.origin}/card.json`);
    await asked;
    stop.abort(new Error('turn cancelled'));
    await expect(pending).rejects.toThrow('turn cancelled');
  });
});
