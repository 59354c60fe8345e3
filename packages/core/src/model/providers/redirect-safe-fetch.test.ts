import Anthropic from '@anthropic-ai/sdk';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync, constants as zlibConstants, createGzip } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { redirectSafeFetch, redirectedHop, type Hop } from './redirect-safe-fetch.js';

// redirectSafeFetch against a raw node:http server on 127.0.0.1: what the provider SDKs rely on from a
// fetch (chunks as they come, abort, the errors of a lost connection, compression, redirects).

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: Handler): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const decoder = new TextDecoder();

/** Promise.withResolvers, which Node 20 lacks. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}
async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { value, done } = await reader.read();
  expect(done).toBe(false);
  return decoder.decode(value);
}

// Each case runs against Node's own fetch too: the two must agree, which is what "the same semantics" means here.
describe.each([
  ['redirectSafeFetch', redirectSafeFetch],
  ["Node's fetch (undici), the reference", (input: string | URL | Request, init?: RequestInit) => globalThis.fetch(input, init)],
])('%s', (_name, fetchImplementation) => {
  it('hands each chunk of a streamed body to the reader as it arrives, while the response is still open', async () => {
    const next: Array<() => void> = [];
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
      next.push(
        () => response.write('data: two\n\n'),
        () => response.end('data: three\n\n'),
      );
    });
    const response = await fetchImplementation(`${url}/stream`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    // The server writes the next event only once the reader has the last one: nothing can be buffered to the end.
    expect(await readChunk(reader)).toBe('data: one\n\n');
    next.shift()?.();
    expect(await readChunk(reader)).toBe('data: two\n\n');
    next.shift()?.();
    expect(await readChunk(reader)).toBe('data: three\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('sends the method, body and headers given (a Headers, an array or a record), with the defaults undici adds', async () => {
    const seen: Array<{ method?: string; headers: IncomingMessage['headers']; body: string }> = [];
    const url = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ method: request.method, headers: request.headers, body });
        response.end('ok');
      });
    });
    const given = [
      new Headers({ 'X-Api-Key': 'k1', 'content-type': 'application/json' }),
      new Headers({ 'x-api-key': 'k2' }),
      [['X-Api-Key', 'k3']] as Array<[string, string]>,
      { 'x-api-key': 'k4' },
    ];
    for (const headers of given)
      expect(await (await fetchImplementation(`${url}/x`, { method: 'post', headers, body: 'héllo' })).text()).toBe('ok');
    expect(seen.map((request) => request.headers['x-api-key'])).toEqual(['k1', 'k2', 'k3', 'k4']);
    expect(seen[0]).toMatchObject({
      method: 'POST',
      body: 'héllo',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength('héllo')), accept: '*/*' },
    });
    expect(seen[1]?.headers['content-type']).toBe('text/plain;charset=UTF-8');
  });

  it('answers with headers as undici does: case-insensitive, sorted, repeated ones joined, set-cookie apart, immutable', async () => {
    const url = await serve((_request, response) => {
      response.setHeader('Set-Cookie', ['a=1', 'b=2']);
      response.setHeader('X-Zeta', 'z');
      response.appendHeader('X-Multi', 'one');
      response.appendHeader('X-Multi', 'two');
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end('{"answer":42}');
    });
    const response = await fetchImplementation(url);
    expect(response.headers.get('x-multi')).toBe('one, two');
    expect(response.headers.get('CONTENT-TYPE')).toBe('application/json');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect([...response.headers.keys()].filter((name) => name.startsWith('x-') || name === 'set-cookie')).toEqual([
      'set-cookie',
      'set-cookie',
      'x-multi',
      'x-zeta',
    ]);
    expect(() => response.headers.set('x-zeta', 'changed')).toThrow(TypeError);
    expect(await response.json()).toEqual({ answer: 42 });
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
  });

  it('an abort mid-stream errors the body with the signal reason and closes the connection', async () => {
    const closed = deferred();
    const url = await serve((request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
      request.socket.on('close', () => closed.resolve());
    });
    const controller = new AbortController();
    const response = await fetchImplementation(url, { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(await readChunk(reader)).toBe('data: first\n\n');
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    await closed.promise;
  });

  it('an abort before the response rejects with the signal reason and closes the connection; an aborted signal sends nothing', async () => {
    const arrived = deferred();
    const closed = deferred();
    let requests = 0;
    const url = await serve((request) => {
      requests++;
      request.socket.on('close', () => closed.resolve());
      arrived.resolve();
    });
    const controller = new AbortController();
    const pending = fetchImplementation(url, { signal: controller.signal });
    await arrived.promise;
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await closed.promise;
    await expect(fetchImplementation(url, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(requests).toBe(1);
  });

  it('an abort just after the call, before anything is sent, rejects with the signal reason rather than being lost', async () => {
    let requests = 0;
    const url = await serve((_request, response) => {
      requests++;
      response.end('answered');
    });
    const controller = new AbortController();
    const pending = fetchImplementation(url, { signal: controller.signal });
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(requests).toBe(0);
  });

  it('a 101 the request never asked for rejects with TypeError "fetch failed" instead of never settling', async () => {
    // Written on the socket itself: node:http's server would not send a 101 to a request that asked for none.
    const url = await serve((request) =>
      request.socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: other\r\nConnection: upgrade\r\n\r\n'),
    );
    await expect(fetchImplementation(url)).rejects.toMatchObject({ name: 'TypeError', message: 'fetch failed' });
  });

  it('a HEAD answers with no body (null), as a 204 does, whatever content-length says', async () => {
    const url = await serve((_request, response) => response.writeHead(200, { 'content-length': '5' }).end());
    const response = await fetchImplementation(url, { method: 'HEAD' });
    expect(response.body).toBeNull();
    expect(await response.text()).toBe('');
  });

  it('no server: rejects as undici does (TypeError "fetch failed", the reason in cause), which the SDK reports as a connection error', async () => {
    const url = await serve(() => {});
    const server = servers.pop() as Server;
    await new Promise((resolve) => server.close(resolve));
    const failure = await fetchImplementation(url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect(failure).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
    const client = new Anthropic({ apiKey: 'test', baseURL: url, maxRetries: 0, fetch: fetchImplementation });
    await expect(client.messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(
      Anthropic.APIConnectionError,
    );
  });

  it('a connection lost mid-body errors the body with TypeError "terminated"', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': '1000' });
      response.write('data: partial\n\n', () => response.socket?.destroy());
    });
    const response = await fetchImplementation(url);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(await readChunk(reader)).toBe('data: partial\n\n');
    await expect(reader.read()).rejects.toMatchObject({ name: 'TypeError', message: 'terminated' });
  });

  it('decompresses a gzip body, chunk by chunk when the server flushes each event', async () => {
    const next: Array<() => void> = [];
    const url = await serve((request, response) => {
      if (request.url === '/whole') {
        response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/json' }).end(gzipSync('{"zipped":true}'));
        return;
      }
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/event-stream' });
      const gzip = createGzip();
      gzip.pipe(response);
      gzip.write('data: one\n\n', () => gzip.flush(zlibConstants.Z_SYNC_FLUSH));
      next.push(() => gzip.end('data: two\n\n'));
    });
    expect(await (await fetchImplementation(`${url}/whole`)).json()).toEqual({ zipped: true });
    const response = await fetchImplementation(`${url}/stream`, { headers: { 'accept-encoding': 'gzip' } });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(await readChunk(reader)).toBe('data: one\n\n');
    next.shift()?.();
    let rest = '';
    for (let part = await reader.read(); !part.done; part = await reader.read()) rest += decoder.decode(part.value);
    expect(rest).toBe('data: two\n\n');
  });

  it('a POST answered with a 307 or 308 reaches the redirecting server once, and the same method and body go to the new place', async () => {
    const seen: string[] = [];
    const url = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push(`${request.method} ${request.url} ${body} ${request.headers['content-type']}`);
        if (request.url === '/old') response.writeHead(307, { location: '/older' }).end();
        else if (request.url === '/older') response.writeHead(308, { location: `${url}/new?page=2` }).end('moved');
        else response.end(`at ${request.url}`);
      });
    });
    const response = await fetchImplementation(`${url}/old`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"x":1}',
    });
    expect(await response.text()).toBe('at /new?page=2');
    expect(response).toMatchObject({ status: 200, redirected: true, url: `${url}/new?page=2` });
    expect(seen).toEqual([
      'POST /old {"x":1} application/json',
      'POST /older {"x":1} application/json',
      'POST /new?page=2 {"x":1} application/json',
    ]);
  });

  it('a 301 or 302 turns a POST into a GET without body or body headers, a 303 turns anything but HEAD into a GET', async () => {
    const seen: string[] = [];
    const url = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push(
          `${request.method} ${request.url} [${body}] ${request.headers['content-type'] ?? '-'} ${request.headers['content-length'] ?? '-'} ${request.headers['x-kept'] ?? '-'}`,
        );
        const status = Number(request.url?.slice(1));
        if (status) response.writeHead(status, { location: '/end' }).end();
        else response.end('done');
      });
    });
    const headers = { 'content-type': 'application/json', 'x-kept': 'yes' };
    for (const status of [301, 302, 303]) {
      const response = await fetchImplementation(`${url}/${status}`, { method: 'POST', headers, body: '{}' });
      expect(await response.text()).toBe('done');
    }
    await fetchImplementation(`${url}/303`, { method: 'PUT', headers, body: '{}' });
    await fetchImplementation(`${url}/303`, { method: 'HEAD', headers: { 'x-kept': 'yes' } });
    await fetchImplementation(`${url}/301`, { method: 'PUT', headers, body: 'same' });
    expect(seen.filter((line) => !line.includes(' /3'))).toEqual([
      'GET /end [] - - yes',
      'GET /end [] - - yes',
      'GET /end [] - - yes',
      'GET /end [] - - yes',
      'HEAD /end [] - - yes',
      'PUT /end [same] application/json 4 yes',
    ]);
    expect(seen.filter((line) => line.includes(' /3')).length).toBe(6);
  });

  it('another origin gets no authorization, cookie or proxy-authorization; the same origin keeps them', async () => {
    const seen: IncomingMessage['headers'][] = [];
    const other = await serve((request, response) => {
      seen.push(request.headers);
      response.end('other');
    });
    const url = await serve((request, response) => {
      if (request.url === '/away') response.writeHead(302, { location: `${other}/landed` }).end();
      else if (request.url === '/here') response.writeHead(302, { location: '/landed' }).end();
      else {
        seen.push(request.headers);
        response.end('same');
      }
    });
    const headers = {
      authorization: 'Bearer secret',
      cookie: 'session=secret',
      'proxy-authorization': 'Basic secret',
      accept: 'application/json',
    };
    expect(await (await fetchImplementation(`${url}/here`, { headers })).text()).toBe('same');
    expect(await (await fetchImplementation(`${url}/away`, { headers })).text()).toBe('other');
    expect(seen[0]).toMatchObject(headers);
    expect(seen[1]).toMatchObject({ accept: 'application/json' });
    for (const name of ['authorization', 'cookie', 'proxy-authorization']) expect(seen[1]).not.toHaveProperty(name);
  });

  it('follows at most 20 redirects, then rejects with TypeError "fetch failed"', async () => {
    let requests = 0;
    const url = await serve((request, response) => {
      requests++;
      const step = Number(request.url?.slice(1));
      if (step > 0) response.writeHead(302, { location: `/${step - 1}` }).end();
      else response.end('arrived');
    });
    expect(await (await fetchImplementation(`${url}/20`)).text()).toBe('arrived');
    expect(requests).toBe(21);
    await expect(fetchImplementation(`${url}/21`)).rejects.toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect(requests).toBe(21 + 21);
  });

  it('redirect "manual" answers with the redirect itself; "error" rejects with TypeError "fetch failed"; a location to another scheme fails', async () => {
    let requests = 0;
    const url = await serve((request, response) => {
      requests++;
      if (request.url === '/file') response.writeHead(302, { location: 'file:///etc/passwd' }).end();
      else if (request.url === '/moved') response.writeHead(301, { location: '/new' }).end('see /new');
      else response.end('new');
    });
    const manual = await fetchImplementation(`${url}/moved`, { redirect: 'manual' });
    expect(manual).toMatchObject({ status: 301, redirected: false, url: `${url}/moved` });
    expect(manual.headers.get('location')).toBe('/new');
    expect(await manual.text()).toBe('see /new');
    await expect(fetchImplementation(`${url}/moved`, { redirect: 'error' })).rejects.toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
    });
    await expect(fetchImplementation(`${url}/file`)).rejects.toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect(requests).toBe(3);
  });

  it('an abort while a redirect chain waits on its second server rejects with the signal reason and closes that connection', async () => {
    const arrived = deferred();
    const closed = deferred();
    const other = await serve((request) => {
      request.socket.on('close', () => closed.resolve());
      arrived.resolve();
    });
    const url = await serve((_request, response) => response.writeHead(307, { location: `${other}/slow` }).end());
    const controller = new AbortController();
    const pending = fetchImplementation(`${url}/start`, { method: 'POST', body: 'x', signal: controller.signal });
    await arrived.promise;
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await closed.promise;
  });

  it('a Location of raw UTF-8 bytes leads where its text says (node:http reads header bytes as latin1)', async () => {
    const url = await serve((request, response) => {
      if (request.url === '/moved') response.writeHead(302, { location: Buffer.from('/café', 'utf8').toString('latin1') }).end();
      else response.end(`at ${request.url}`);
    });
    const response = await fetchImplementation(`${url}/moved`);
    expect(await response.text()).toBe('at /caf%C3%A9');
    expect(response.url).toBe(`${url}/caf%C3%A9`);
  });

  it('a URL with a user name or password is refused, at the start or in a redirect, and no credentials are sent anywhere', async () => {
    const seen: Array<{ port: string; authorization: string | undefined }> = [];
    const other = await serve((request, response) => {
      seen.push({ port: 'other', authorization: request.headers.authorization });
      response.end('other');
    });
    const url = await serve((request, response) => {
      seen.push({ port: 'first', authorization: request.headers.authorization });
      // A hostile server names credentials of its choosing, for another origin and for its own.
      if (request.url === '/to-other') response.writeHead(307, { location: `${other.replace('//', '//user:pass@')}/x` }).end();
      else if (request.url === '/to-self') response.writeHead(302, { location: `${url.replace('//', '//user:pass@')}/x` }).end();
      else response.end('self');
    });
    await expect(fetchImplementation(`${url.replace('//', '//user:pass@')}/x`)).rejects.toMatchObject({
      name: 'TypeError',
      message: expect.stringContaining('includes credentials'),
    });
    expect(seen).toEqual([]);
    for (const path of ['/to-other', '/to-self']) {
      await expect(fetchImplementation(`${url}${path}`, { method: 'POST', body: 'x' })).rejects.toMatchObject({
        name: 'TypeError',
        message: 'fetch failed',
      });
    }
    expect(seen).toEqual([
      { port: 'first', authorization: undefined },
      { port: 'first', authorization: undefined },
    ]);
  });
});

describe('redirectSafeFetch, and not the global fetch as it was when core loaded', () => {
  it('uses the global fetch of the moment of the call, so a fetch the user installs later is the one that sends', async () => {
    const url = await serve((_request, response) => response.end('direct'));
    const original = globalThis.fetch;
    const seen: string[] = [];
    globalThis.fetch = (input, init) => {
      seen.push(String(input));
      return original(input, init);
    };
    try {
      expect(await (await redirectSafeFetch(`${url}/x`)).text()).toBe('direct');
    } finally {
      globalThis.fetch = original;
    }
    expect(seen).toEqual([`${url}/x`]);
  });

  it('loading core and building both SDK clients with it loads no undici: Node loads it on the first request only', () => {
    // A fresh process (vitest's own has undici loaded already), on core as built, as the other child processes of these tests.
    // Each step says whether undici is loaded once it is done.
    const script = `
      const loaded = () => process.moduleLoadList.some((entry) => entry.includes('undici'));
      const steps = {};
      const { redirectSafeFetch, AnthropicProvider, OpenAIProvider } = await import('@legion-collective/core');
      steps.core = loaded();
      const { default: Anthropic } = await import('@anthropic-ai/sdk');
      new Anthropic({ apiKey: 'k', fetch: redirectSafeFetch });
      new AnthropicProvider({ provider: 'anthropic', model: 'm' }, {}, { ANTHROPIC_API_KEY: 'k' });
      steps.anthropic = loaded();
      const { default: OpenAI } = await import('openai');
      new OpenAI({ apiKey: 'k', fetch: redirectSafeFetch });
      new OpenAIProvider({ provider: 'openai', model: 'm' }, {}, { OPENAI_API_KEY: 'k' });
      steps.openai = loaded();
      await redirectSafeFetch('http://127.0.0.1:9/').catch(() => undefined);
      steps.request = loaded();
      // openai exports no package.json: read the one beside the module that was loaded.
      const { existsSync, readFileSync } = await import('node:fs');
      const { fileURLToPath } = await import('node:url');
      const { dirname, join } = await import('node:path');
      let folder = dirname(fileURLToPath(import.meta.resolve('openai')));
      while (!(existsSync(join(folder, 'package.json')) && readFileSync(join(folder, 'package.json'), 'utf8').includes('"name": "openai"'))) folder = dirname(folder);
      steps.openaiMajor = Number(JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).version.split('.')[0]);
      console.log(JSON.stringify(steps));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: import.meta.dirname });
    expect(result.status, result.stderr).toBe(0);
    const steps = JSON.parse(result.stdout) as {
      core: boolean;
      anthropic: boolean;
      openai: boolean;
      request: boolean;
      openaiMajor: number;
    };
    expect(steps).toMatchObject({ core: false, anthropic: false, request: true });
    // openai 7 (which a user on Node 22 may install instead of the 6.x Legion ships) reaches the fetch
    // globals itself as it loads: its users pay undici then, whatever Legion hands it. 6.x does not.
    if (steps.openaiMajor < 7) expect(steps.openai).toBe(false);
  });
});

describe('redirectSafeFetch, stricter than the standard on redirects to another origin', () => {
  it("an SDK's key, its other headers and the caller's own never reach the origin a base URL redirects to; the same origin gets them", async () => {
    const landed: IncomingMessage['headers'][] = [];
    const answer = JSON.stringify({
      id: 'm1',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'text', text: 'hi' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    });
    const other = await serve((request, response) => {
      landed.push(request.headers);
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(answer));
    });
    let redirecting = 0;
    const url = await serve((request, response) => {
      request.resume();
      if (request.url?.startsWith('/away/')) {
        redirecting++;
        response.writeHead(307, { location: `${other}/landed` }).end();
      } else if (request.url?.startsWith('/here/')) response.writeHead(308, { location: '/landed' }).end();
      else {
        landed.push(request.headers);
        response.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      }
    });
    const ask = (path: string): Promise<unknown> =>
      new Anthropic({
        apiKey: 'sk-secret',
        baseURL: `${url}/${path}`,
        maxRetries: 0,
        fetch: redirectSafeFetch,
        defaultHeaders: { 'x-goog-api-key': 'g-secret', 'x-portkey-api-key': 'p-secret' },
      }).messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] });
    await ask('here');
    await ask('away');
    expect(redirecting).toBe(1);
    const [same, away] = landed;
    // The key goes in x-api-key or authorization, by the SDK's version: either way, to the same origin only.
    expect(JSON.stringify(same)).toContain('sk-secret');
    expect(same).toMatchObject({ 'x-goog-api-key': 'g-secret', 'anthropic-version': expect.any(String) });
    // What undici adds to any request, and what says what the body is: nothing the SDK or the caller set.
    expect(Object.keys(away ?? {}).sort()).toEqual([
      'accept',
      'accept-encoding',
      'accept-language',
      'connection',
      'content-length',
      'content-type',
      'host',
      'sec-fetch-mode',
      'user-agent',
    ]);
    expect(JSON.stringify(away)).not.toContain('secret');
  });

  it('a hop from https to http on the same host is to another origin: only the headers about the body and what is accepted go on', () => {
    const next = redirectedHop(
      {
        url: new URL('https://api.example/v1/messages'),
        method: 'POST',
        headers: new Headers({
          'api-key': 'azure-secret',
          authorization: 'Bearer secret',
          accept: 'application/json',
          'content-type': 'application/json',
          'content-length': '2',
        }),
        body: '{}',
      },
      307,
      'http://api.example/v1/messages',
    );
    expect(next).toMatchObject({ method: 'POST', body: '{}' });
    expect([...(next as Hop).headers]).toEqual([
      ['accept', 'application/json'],
      ['content-length', '2'],
      ['content-type', 'application/json'],
    ]);
  });

  it("a plain call's x-api-key and any header of its own stay behind on a redirect to another origin, which Node's fetch alone would send", async () => {
    const landed: IncomingMessage['headers'][] = [];
    const other = await serve((request, response) => {
      landed.push(request.headers);
      response.end('other');
    });
    const url = await serve((_request, response) => response.writeHead(302, { location: `${other}/landed` }).end());
    const headers = { 'x-api-key': 'sk-secret', 'x-custom-token': 't-secret' };
    expect(await (await redirectSafeFetch(url, { headers })).text()).toBe('other');
    expect(await (await globalThis.fetch(url, { headers })).text()).toBe('other');
    expect(landed[0]).not.toHaveProperty('x-api-key');
    expect(landed[0]).not.toHaveProperty('x-custom-token');
    // The reason for the wrapper: undici strips authorization and cookies only.
    expect(landed[1]).toMatchObject(headers);
  });

  it('a 307 of a streamed body, which cannot be sent twice, fails as in undici and reaches the redirecting server once', async () => {
    const seen: string[] = [];
    const url = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push(`${request.method} ${request.url} ${body}`);
        response.writeHead(307, { location: '/again' }).end();
      });
    });
    const stream = (): ReadableStream<Uint8Array> => new Blob(['streamed']).stream();
    const send = (fetchImplementation: typeof redirectSafeFetch): Promise<Response> =>
      fetchImplementation(`${url}/first`, { method: 'POST', body: stream(), duplex: 'half' } as RequestInit);
    for (const fetchImplementation of [redirectSafeFetch, globalThis.fetch])
      await expect(send(fetchImplementation)).rejects.toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect(seen).toEqual(['POST /first streamed', 'POST /first streamed']);
  });
});
