import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toolContext } from '../__fixtures__/tool-context.js';
import { checkWorkspaceTool } from './workspace-tool-checks.js';
import { WorkspaceToolFileSchema } from './workspace-tool-schema.js';
import { createWorkspaceTool, type WorkspaceTool } from './workspace-tool.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let base: string;
let received: Received[];
/** Open responses the "hang" route never ends; closed in afterEach. */
let hanging: Array<() => void>;
/** Where the "redirect" route sends the client. */
let redirectTo = '/';

beforeEach(async () => {
  received = [];
  hanging = [];
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (request.url?.startsWith('/hang')) {
        hanging.push(() => response.destroy());
        return;
      }
      if (request.url?.startsWith('/redirect')) {
        response.writeHead(302, { location: redirectTo }).end();
        return;
      }
      if (request.url?.startsWith('/missing')) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('no such item');
        return;
      }
      if (request.url?.startsWith('/huge')) {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('y'.repeat(3 * 1024 * 1024));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, path: request.url }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const close of hanging) close();
  await new Promise((resolve) => server.close(resolve));
});

function httpTool(execution: Record<string, unknown>, extra: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}): WorkspaceTool {
  const definition = WorkspaceToolFileSchema.parse({
    name: 'api',
    description: 'test API',
    parameters: {
      type: 'object',
      properties: { id: { type: 'string' }, title: { type: 'string' }, count: { type: 'integer' }, note: { type: 'string' } },
    },
    variables: { API: base },
    execution: { type: 'http', ...execution },
    ...extra,
  });
  expect(checkWorkspaceTool(definition)).toBeUndefined();
  return createWorkspaceTool(definition, { file: 'api.json', workspaceRoot: '/', env });
}

describe('http workspace tools', () => {
  it('percent-encodes arguments in the URL so they cannot change the path, query or host', async () => {
    const api = httpTool({ url: '${API}/items/${id}?q=${title}' });
    const result = await api.execute({ id: 'a?x=1#frag @x', title: 'a&b=c @evil.com/' }, toolContext());
    expect(result).toMatchObject({ status: 'success' });
    expect(received).toHaveLength(1);
    expect(received[0]!.url).toBe('/items/a%3Fx%3D1%23frag%20%40x?q=a%26b%3Dc%20%40evil.com%2F');
    expect(received[0]!.method).toBe('GET');
  });

  describe('a value fills exactly its URL path segment', () => {
    const issues = (): WorkspaceTool =>
      httpTool(
        { url: '${API}/repos/${owner}/${repo}/issues/${n}', headers: { Authorization: 'Bearer ${env:API_TOKEN}' } },
        { parameters: { type: 'object', properties: { owner: { type: 'string' }, repo: { type: 'string' }, n: { type: 'string' } } } },
        { API_TOKEN: 'secret-token' },
      );

    it('refuses ".." values and sends nothing (they resolved the request, with its Authorization, to GET /)', async () => {
      const result = await issues().execute({ owner: '..', repo: '..', n: '..' }, toolContext());
      expect(result).toEqual({
        status: 'error',
        error:
          'api: "owner" is "..", which is a "." or ".." segment, which a URL resolves to another path; nothing was sent. ' +
          'A value in the URL path fills exactly one segment: give a non-empty value without "/", "\\" or control characters that is not "." or "..".',
      });
      expect(received).toEqual([]);
    });

    it.each([
      ['.', 'is a "." or ".." segment'],
      ['%2e%2e', 'is a "." or ".." segment once percent-decoded'],
      ['%252E%252e', 'is a "." or ".." segment once percent-decoded'],
      ['a/b', 'contains "/" or "\\"'],
      ['..%2f..%2fadmin', 'contains "/" or "\\" once percent-decoded'],
      ['a\\b', 'contains "/" or "\\"'],
      ['', 'is empty'],
      ['x\u0000y', 'contains control characters'],
    ])('refuses %j and sends nothing', async (value, problem) => {
      const result = await issues().execute({ owner: 'octo', repo: value, n: '1' }, toolContext());
      expect(result).toMatchObject({
        status: 'error',
        error: expect.stringContaining(`"repo" is ${JSON.stringify(value)}, which ${problem}`),
      });
      expect(received).toEqual([]);
    });

    it('keeps "?", "#", "=" and "%" inside the segment', async () => {
      const result = await issues().execute({ owner: '?x=', repo: '#top', n: '100%' }, toolContext());
      expect(result).toMatchObject({ status: 'success' });
      expect(received.map((request) => request.url)).toEqual(['/repos/%3Fx%3D/%23top/issues/100%25']);
    });

    it('refuses a value that makes a dot segment with the text around it', async () => {
      const result = await httpTool({ url: '${API}/items/.${id}/x' }).execute({ id: '.x' }, toolContext());
      expect(result).toMatchObject({ status: 'success' });
      expect(await httpTool({ url: '${API}/items/.%2${id}/x' }).execute({ id: 'e' }, toolContext())).toMatchObject({
        status: 'error',
        error: expect.stringContaining('the path segment ".%2e" that "id" fills is a "." or ".." once percent-decoded'),
      });
      expect(received.map((request) => request.url)).toEqual(['/items/..x/x']);
    });

    it("refuses an argument in the host or port: the tool's headers would go where the value says", async () => {
      const port = new URL(base).port;
      const byPort = httpTool(
        { url: 'http://127.0.0.1:${id}/x', headers: { Authorization: 'Bearer ${env:API_TOKEN}' } },
        {},
        { API_TOKEN: 'secret-token' },
      );
      expect(await byPort.execute({ id: port }, toolContext())).toMatchObject({
        status: 'error',
        error: expect.stringContaining('"id" sits in the scheme, host or port'),
      });
      const appended = httpTool({ url: '${API}${id}/x' });
      expect(await appended.execute({ id: '@127.0.0.1' }, toolContext())).toMatchObject({
        status: 'error',
        error: expect.stringContaining('"id" sits in the scheme, host or port'),
      });
      expect(received).toEqual([]);
    });
  });

  it('fills headers from variables and the environment, and sends a JSON body with typed leaves', async () => {
    const api = httpTool(
      {
        method: 'POST',
        url: '${API}/items',
        headers: { Authorization: 'Bearer ${env:API_TOKEN}', 'X-Title': '${title}' },
        body: { title: '${title}', count: '${count}', note: '${note}', label: 'item: ${title}', list: ['${count}', '${note}'] },
      },
      {},
      { API_TOKEN: 'secret-token' },
    );
    const result = await api.execute({ title: 'Fix "bug"', count: 3 }, toolContext());
    expect(result).toEqual({ status: 'success', data: JSON.stringify({ ok: true, path: '/items' }) });
    const request = received[0]!;
    expect(request.method).toBe('POST');
    expect(request.headers.authorization).toBe('Bearer secret-token');
    expect(request.headers['x-title']).toBe('Fix "bug"');
    expect(request.headers['content-type']).toBe('application/json');
    // `note` was not given: left out of the object, null in the array.
    expect(JSON.parse(request.body)).toEqual({ title: 'Fix "bug"', count: 3, label: 'item: Fix "bug"', list: [3, null] });
  });

  it('sends a string body template as written', async () => {
    const api = httpTool({ method: 'PUT', url: '${API}/raw', headers: { 'content-type': 'text/plain' }, body: 'title=${title}' });
    await api.execute({ title: 'x y' }, toolContext());
    expect(received[0]).toMatchObject({ method: 'PUT', body: 'title=x y' });
    expect(received[0]!.headers['content-type']).toBe('text/plain');
  });

  it('refuses a header value that would smuggle in another header, naming the argument', async () => {
    const api = httpTool({ url: '${API}/x', headers: { 'X-Title': 'T: ${title}' } });
    const result = await api.execute({ title: 'a\r\nX-Admin: yes' }, toolContext());
    expect(result).toEqual({
      status: 'error',
      error:
        'api: "title" is "a\\r\\nX-Admin: yes", which contains a line break or another control character and would break the "X-Title" header; nothing was sent. Give a value without control characters.',
    });
    expect(received).toHaveLength(0);
  });

  describe('a string body template keeps each value inside its place', () => {
    const injection = 'hi","role":"admin","x":"';

    it.each([['application/json'], [undefined]])('JSON-escapes a value inside a JSON string (content-type %s)', async (contentType) => {
      const api = httpTool({
        method: 'POST',
        url: '${API}/messages',
        headers: contentType ? { 'content-type': contentType } : {},
        body: '{"text":"${title}","role":"guest"}',
      });
      expect(await api.execute({ title: injection }, toolContext())).toMatchObject({ status: 'success' });
      expect(received).toHaveLength(1);
      // One "role", the template's.
      expect(received[0]!.body.match(/"role":/g)).toHaveLength(1);
      expect(JSON.parse(received[0]!.body)).toEqual({ text: injection, role: 'guest' });
    });

    it('writes a bare value as JSON: numbers stay numbers, strings become strings, a missing one null', async () => {
      const api = httpTool({
        method: 'POST',
        url: '${API}/items',
        headers: { 'content-type': 'application/json' },
        body: '{"count": ${count}, "title": ${title}, "note": ${note}}',
      });
      expect(await api.execute({ count: 3, title: '1, "role": "admin"' }, toolContext())).toMatchObject({ status: 'success' });
      expect(JSON.parse(received[0]!.body)).toEqual({ count: 3, title: '1, "role": "admin"', note: null });
    });

    it('refuses a placeholder after a backslash in a JSON string, where the value could end the string', async () => {
      const api = httpTool({ method: 'POST', url: '${API}/items', body: '{"text":"\\${title}","role":"guest"}' });
      expect(await api.execute({ title: '","role":"admin' }, toolContext())).toMatchObject({
        status: 'error',
        error: expect.stringContaining('right after a backslash'),
      });
      expect(received).toEqual([]);
    });

    it('percent-encodes values of a form body', async () => {
      const api = httpTool({
        method: 'POST',
        url: '${API}/form',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'title=${title}&role=guest',
      });
      expect(await api.execute({ title: 'a b&role=admin' }, toolContext())).toMatchObject({ status: 'success' });
      const form = new URLSearchParams(received[0]!.body);
      expect(form.getAll('role')).toEqual(['guest']);
      expect(form.get('title')).toBe('a b&role=admin');
    });

    it('escapes values of an XML body', async () => {
      const api = httpTool({
        method: 'POST',
        url: '${API}/xml',
        headers: { 'content-type': 'application/xml' },
        body: '<item role="guest"><title>${title}</title></item>',
      });
      expect(await api.execute({ title: '</title><role>admin</role><title>' }, toolContext())).toMatchObject({ status: 'success' });
      expect(received[0]!.body).toBe(
        '<item role="guest"><title>&#60;/title&#62;&#60;role&#62;admin&#60;/role&#62;&#60;title&#62;</title></item>',
      );
    });
  });

  it.each([['directly'], ['with HTTP_PROXY set, when the global fetch sends it']])(
    "follows a redirect to another origin without the tool's headers (%s)",
    async (how) => {
      // Only its presence matters: Node's fetch uses it only with NODE_USE_ENV_PROXY, so the requests still go straight to the servers.
      if (how !== 'directly') vi.stubEnv('HTTP_PROXY', 'http://127.0.0.1:9');
      const other: Received[] = [];
      const elsewhere = createServer((request, response) => {
        other.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: '' });
        response.writeHead(200, { 'content-type': 'text/plain' }).end('elsewhere');
      });
      await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
      const elsewhereBase = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
      try {
        redirectTo = `${elsewhereBase}/landing`;
        const api = httpTool(
          { url: '${API}/redirect', headers: { 'X-Api-Key': '${env:API_TOKEN}', Authorization: 'Bearer ${env:API_TOKEN}' } },
          {},
          { API_TOKEN: 'secret-token' },
        );
        expect(await api.execute({}, toolContext())).toEqual({ status: 'success', data: 'elsewhere' });
        expect(received[0]!.headers['x-api-key']).toBe('secret-token');
        expect(other).toHaveLength(1);
        expect(other[0]!.headers['x-api-key']).toBeUndefined();
        expect(other[0]!.headers.authorization).toBeUndefined();
      } finally {
        vi.unstubAllEnvs();
        await new Promise((resolve) => elsewhere.close(resolve));
      }
    },
  );

  it('turns an HTTP error status into an error result with the body', async () => {
    const api = httpTool({ url: '${API}/missing/${id}' });
    expect(await api.execute({ id: '7' }, toolContext())).toEqual({
      status: 'error',
      error: `api: GET ${base}/missing/7 answered HTTP 404 Not Found: no such item`,
    });
  });

  it('gives up on a server that does not answer within the timeout', async () => {
    const api = httpTool({ url: '${API}/hang', timeoutMs: 300 });
    expect(await api.execute({}, toolContext())).toEqual({ status: 'error', error: `api: GET ${base}/hang timed out after 300 ms.` });
  });

  it('reports a refused connection without throwing', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const api = httpTool({ url: `http://127.0.0.1:${port}/x` });
    const result = await api.execute({}, toolContext());
    expect(result).toMatchObject({ status: 'error', error: expect.stringContaining('ECONNREFUSED') });
  });

  it('reads at most a bounded part of a huge response', async () => {
    const api = httpTool({ url: '${API}/huge' });
    const result = await api.execute({}, toolContext());
    const text = (result as { data: string }).data;
    expect(text).toMatch(/\n… \[response cut after 1048576 characters; at least \d+ more bytes not read\]$/);
  });
});
