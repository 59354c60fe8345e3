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

beforeEach(async () => {
  received = [];
  hanging = [];
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (request.url?.startsWith('/hang')) {
        hanging.push(() => response.destroy());
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
    parameters: { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' }, count: { type: 'integer' }, note: { type: 'string' } } },
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
    const result = await api.execute({ id: '../admin?x=1#frag', title: 'a&b=c @evil.com/' }, toolContext());
    expect(result).toMatchObject({ status: 'success' });
    expect(received).toHaveLength(1);
    expect(received[0]!.url).toBe('/items/..%2Fadmin%3Fx%3D1%23frag?q=a%26b%3Dc%20%40evil.com%2F');
    expect(received[0]!.method).toBe('GET');
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

  it('refuses a header value that would smuggle in another header', async () => {
    const api = httpTool({ url: '${API}/x', headers: { 'X-Title': '${title}' } });
    const result = await api.execute({ title: 'a\r\nX-Admin: yes' }, toolContext());
    expect(result).toEqual({ status: 'error', error: 'api: the "X-Title" header would contain a line break; refused.' });
    expect(received).toHaveLength(0);
  });

  it('turns an HTTP error status into an error result with the body', async () => {
    const api = httpTool({ url: '${API}/missing/${id}' });
    expect(await api.execute({ id: '7' }, toolContext())).toEqual({ status: 'error', error: `api: GET ${base}/missing/7 answered HTTP 404 Not Found: no such item` });
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
