import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One HTTP request exactly as a client sent it. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/messages`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
}

export interface WireRecorder {
  /** Where clients should connect instead of the target (no trailing slash). */
  readonly url: string;
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Request bodies sent to paths ending with `pathSuffix`, in order. */
  bodies(pathSuffix?: string): unknown[];
  close(): Promise<void>;
}

/** Hop-by-hop headers that describe one connection, not the message (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

/**
 * A pass-through HTTP proxy on 127.0.0.1 that records the raw requests a
 * client sends and forwards them to `targetUrl`, streaming each response back
 * chunk by chunk. Mock servers often journal a normalised form of the request;
 * this keeps the bytes the SDK actually put on the wire, so tests can assert
 * the exact body. A response the target cuts off is cut off for the client
 * too, and a client that hangs up makes the proxy hang up on the target.
 */
export async function startWireRecorder(targetUrl: string): Promise<WireRecorder> {
  const target = new URL(targetUrl);
  const requests: RecordedRequest[] = [];

  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const raw = Buffer.concat(chunks);
      requests.push({ method: incoming.method ?? 'GET', path: incoming.url ?? '/', headers: incoming.headers, body: parseBody(raw) });
      forward(target, incoming, raw, outgoing);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    bodies: (pathSuffix = '') => requests.filter((entry) => entry.path.split('?')[0]!.endsWith(pathSuffix)).map((entry) => entry.body),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function forward(target: URL, incoming: IncomingMessage, body: Buffer, outgoing: ServerResponse): void {
  const headers: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
  headers.host = target.host;
  headers['content-length'] = String(body.length);
  const basePath = target.pathname.replace(/\/$/, '');
  const upstream = httpRequest(
    {
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      method: incoming.method,
      path: `${basePath}${incoming.url ?? '/'}`,
      headers,
      agent: false,
    },
    (response) => {
      const responseHeaders: IncomingHttpHeaders = {};
      for (const [name, value] of Object.entries(response.headers)) if (!HOP_BY_HOP.has(name)) responseHeaders[name] = value;
      outgoing.writeHead(response.statusCode ?? 502, responseHeaders);
      outgoing.flushHeaders();
      response.on('data', (chunk: Buffer) => outgoing.write(chunk));
      response.on('end', () => {
        // A body the target cut off must reach the client cut off, not completed.
        if (response.complete) outgoing.end();
        else outgoing.destroy();
      });
      response.on('error', () => outgoing.destroy());
      response.on('aborted', () => outgoing.destroy());
    },
  );
  // The target hung up (or was never there): the client sees the same, not an answer we made up.
  upstream.on('error', () => outgoing.destroy());
  outgoing.on('close', () => {
    if (!outgoing.writableFinished) upstream.destroy();
  });
  upstream.end(body);
}

function parseBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
