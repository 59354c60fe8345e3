import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWireRecorder, type WireRecorder } from './wire-recorder.js';

describe('startWireRecorder', () => {
  let target: Server;
  let recorder: WireRecorder;
  let handle: (request: IncomingMessage, response: ServerResponse) => void;
  const seenByTarget: Array<{ url: string | undefined; host: string | undefined; body: string }> = [];

  beforeAll(async () => {
    target = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        seenByTarget.push({ url: request.url, host: request.headers.host, body });
        handle(request, response);
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', () => resolve()));
    recorder = await startWireRecorder(`http://127.0.0.1:${(target.address() as AddressInfo).port}/base/`);
  });
  afterAll(async () => {
    await recorder.close();
    target.closeAllConnections();
    await new Promise<void>((resolve) => target.close(() => resolve()));
  });
  afterEach(() => {
    recorder.requests.length = 0;
    seenByTarget.length = 0;
  });

  it("records the exact request and forwards it under the target's base path", async () => {
    handle = (_request, response) => response.writeHead(201, { 'content-type': 'application/json', 'x-answer': '42' }).end('{"ok":true}');

    const response = await fetch(`${recorder.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'secret' },
      body: '{"model":"m","messages":[]}',
    });

    expect(response.status).toBe(201);
    expect(response.headers.get('x-answer')).toBe('42');
    expect(await response.json()).toEqual({ ok: true });
    expect(recorder.requests).toEqual([
      {
        method: 'POST',
        path: '/v1/messages?beta=true',
        headers: expect.objectContaining({ 'x-api-key': 'secret' }),
        body: { model: 'm', messages: [] },
      },
    ]);
    expect(recorder.bodies('/v1/messages')).toEqual([{ model: 'm', messages: [] }]);
    expect(recorder.bodies('/v1/chat/completions')).toEqual([]);
    expect(seenByTarget).toEqual([
      {
        url: '/base/v1/messages?beta=true',
        host: `127.0.0.1:${(target.address() as AddressInfo).port}`,
        body: '{"model":"m","messages":[]}',
      },
    ]);
  });

  it('keeps a body that is not JSON as text', async () => {
    handle = (_request, response) => response.end();

    await fetch(`${recorder.url}/upload`, { method: 'POST', body: 'plain words' });

    expect(recorder.requests[0]!.body).toBe('plain words');
  });

  it('streams the response through chunk by chunk', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
      void released.then(() => response.end('data: second\n\n'));
    };

    const response = await fetch(`${recorder.url}/stream`, { method: 'POST', body: '{}' });
    const reader = response.body!.getReader();
    const first = await reader.read();
    // The first event arrived while the target still holds the second one back.
    expect(new TextDecoder().decode(first.value)).toBe('data: first\n\n');
    release();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe('data: second\n\n');
  });

  it('cuts the client off when the target cuts the response off', async () => {
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: partial\n\n', () => response.destroy());
    };

    const response = await fetch(`${recorder.url}/stream`, { method: 'POST', body: '{}' });

    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });

  it('hangs up on the target when the client hangs up', async () => {
    let targetClosed!: () => void;
    const closed = new Promise<void>((resolve) => (targetClosed = resolve));
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: waiting\n\n');
      response.on('close', () => targetClosed());
    };
    const controller = new AbortController();

    const response = await fetch(`${recorder.url}/stream`, { method: 'POST', body: '{}', signal: controller.signal });
    await response.body!.getReader().read();
    controller.abort();

    await closed;
    expect(seenByTarget).toHaveLength(1);
  });
});
