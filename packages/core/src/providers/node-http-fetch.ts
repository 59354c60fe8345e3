import type { IncomingMessage } from 'node:http';
import { NodeHttpResponse, webBody } from './node-http-response.js';
import { MAX_REDIRECTS, REDIRECT_STATUSES, redirectedRequest, type HopRequest } from './node-http-redirect.js';

/**
 * The `fetch` the provider SDKs are given: one over node:http(s) instead of Node's own fetch, which
 * is undici, some 35–40 ms of CPU to load and start on a command's first request (a third of what
 * `legion run` costs over a bare node; README.md of the CLI, "How the binary is built").
 *
 * It covers what the SDKs send (a string or bytes to an http(s) URL) and answers with what they
 * read (NodeHttpResponse). Everything else goes to the global fetch unchanged, so behaviour outside
 * the common path stays undici's: a `Request` object or a streamed or form body, another URL
 * scheme, a proxy set in the environment or an undici dispatcher installed by the user.
 *
 * Redirects are followed here, as the Fetch standard says (node-http-redirect.ts), and not handed
 * to the global fetch: that would send the request a second time to the server that redirected it.
 * A hop to another origin carries none of the caller's headers but those saying what it accepts and
 * what the body is, so an API key never reaches a host the base URL redirects to.
 *
 * Failures look as undici's, which the SDKs map to their own errors: no connection rejects with
 * `TypeError('fetch failed', { cause })`; a body cut off is errored with `TypeError('terminated',
 * { cause })`; an abort rejects, or errors the body, with the signal's reason and destroys the
 * socket.
 */
export async function nodeHttpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = typeof input === 'string' ? safeUrl(input) : input instanceof URL ? input : undefined;
  const body = bodyBytes(init.body);
  const mode = init.redirect ?? 'follow';
  // A URL with credentials goes to the global fetch too, which refuses it as the standard says; node:http would send them as basic auth.
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username !== '' ||
    url.password !== '' ||
    body === UNSUPPORTED ||
    !['follow', 'manual', 'error'].includes(mode) ||
    'dispatcher' in init ||
    usesProxyOrDispatcher()
  ) {
    return globalThis.fetch(input, init);
  }
  const signal = init.signal ?? undefined;
  let request: HopRequest = { url, method: (init.method ?? 'GET').toUpperCase(), headers: requestHeaders(init, body), body };
  for (let redirects = 0; ; redirects++) {
    const answer = await send(request, signal, mode, redirects > 0);
    if (answer instanceof NodeHttpResponse) return answer as unknown as Response;
    if (mode === 'error') throw new TypeError('fetch failed', { cause: new Error('unexpected redirect') });
    if (redirects === MAX_REDIRECTS) throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') });
    const next = redirectedRequest(request, answer.status, answer.location);
    if (next instanceof Error) throw new TypeError('fetch failed', { cause: next });
    request = next;
  }
}

const UNSUPPORTED = Symbol('unsupported body');

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function bodyBytes(body: RequestInit['body']): Buffer | undefined | typeof UNSUPPORTED {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return UNSUPPORTED;
}

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/**
 * A proxy in the environment (honoured by Node's fetch from Node 24 with NODE_USE_ENV_PROXY) or a
 * dispatcher set with undici's `setGlobalDispatcher` (a `ProxyAgent`, say): both are the global
 * fetch's business. Undici installs a plain `Agent` of its own when it loads, so that one is not a
 * reason; a user's own plain `Agent` cannot be told from it, and its options do not apply here.
 */
function usesProxyOrDispatcher(): boolean {
  const env = process.env;
  if (env.HTTP_PROXY || env.http_proxy || env.HTTPS_PROXY || env.https_proxy || env.ALL_PROXY || env.all_proxy || env.NODE_USE_ENV_PROXY)
    return true;
  const dispatcher = (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER];
  return dispatcher !== undefined && (dispatcher as { constructor?: { name?: string } } | null)?.constructor?.name !== 'Agent';
}

/** The request's headers as node:http takes them, with the defaults undici adds when the caller sets none. */
function requestHeaders(init: RequestInit, body: Buffer | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  const add = (name: string, value: string): void => {
    const key = name.toLowerCase();
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  };
  const given = init.headers;
  if (Array.isArray(given)) for (const [name, value] of given as Array<[string, string]>) add(name, value);
  else if (given && typeof (given as Headers).forEach === 'function') (given as Headers).forEach((value, name) => add(name, value));
  else if (given) for (const [name, value] of Object.entries(given as Record<string, string>)) add(name, value);
  headers.accept ??= '*/*';
  headers['user-agent'] ??= 'node';
  headers['accept-encoding'] ??= 'gzip, deflate';
  if (body !== undefined) {
    headers['content-type'] ??= 'text/plain;charset=UTF-8';
    headers['content-length'] = String(body.length);
  }
  return headers;
}

/** A redirect the chain is to follow: its status and where it points. */
interface Redirect {
  status: number;
  location: string;
}

/**
 * One request of the chain. A redirect's answer (unless `manual`) closes its connection, as undici
 * does: its body is nobody's to read, and one that never ends must not hold a socket.
 */
async function send(
  { url, method, headers, body: requestBody }: HopRequest,
  signal: AbortSignal | undefined,
  mode: RequestInit['redirect'],
  redirected: boolean,
): Promise<NodeHttpResponse | Redirect> {
  const http = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  // Checked after the import: an abort while it was pending fired no listener, and would be lost.
  if (signal?.aborted) throw signal.reason;
  return new Promise((resolve, reject) => {
    let fail: ((reason: unknown) => void) | undefined;
    const onAbort = (): void => {
      const reason: unknown = signal?.reason;
      if (fail) fail(reason);
      else reject(reason);
      request.destroy();
    };
    const done = (): void => signal?.removeEventListener('abort', onAbort);
    // The global agents keep connections alive (Node 19 and later), as undici does.
    const request = http.request(url, { method, headers }, (message) => {
      const status = message.statusCode ?? 0;
      const location = message.headers.location;
      // "error" refuses any redirect status; "follow" follows one that says where to.
      if (mode !== 'manual' && REDIRECT_STATUSES.has(status) && (location !== undefined || mode === 'error')) {
        done();
        fail = () => {};
        request.destroy();
        resolve({ status, location: location ?? '' });
        return;
      }
      const decoded = decode(message, method);
      const body = webBody(decoded, () => {
        done();
        request.destroy();
      });
      fail = (reason) => {
        done();
        body.fail(reason);
      };
      const cutOff = (cause: unknown): void => fail?.(new TypeError('terminated', { cause }));
      message.on('error', cutOff);
      message.on('close', () => {
        if (!message.complete) cutOff(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
      });
      if (decoded !== message) decoded.on('error', cutOff);
      decoded.on('end', done);
      resolve(new NodeHttpResponse(message, withoutFragment(url), method === 'HEAD' ? null : body.stream, redirected));
    });
    // A 101 the request never asked for: node:http destroys the socket and emits nothing else, so without this the promise would never settle.
    request.on('upgrade', (_message, socket) => {
      socket.destroy();
      done();
      reject(new TypeError('fetch failed', { cause: new Error('bad upgrade') }));
    });
    request.on('error', (error) => {
      if (fail) return fail(new TypeError('terminated', { cause: error }));
      done();
      reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    request.end(requestBody);
  });
}

/** A response's URL, which never shows the fragment (the Fetch standard serializes it "with exclude fragment"). */
function withoutFragment(url: URL): string {
  return url.hash ? url.href.slice(0, url.href.indexOf('#')) : url.href;
}

/** The body as sent, or decompressed when the server compressed it; zlib loads only then. As undici, a coding it does not know is passed through. */
function decode(message: IncomingMessage, method: string): NodeJS.ReadableStream {
  const coding = (message.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (
    method === 'HEAD' ||
    message.statusCode === 204 ||
    message.statusCode === 304 ||
    !['gzip', 'x-gzip', 'deflate', 'br'].includes(coding)
  )
    return message;
  // Loaded here, on the first compressed response, rather than by every command at start-up.
  const zlib = process.getBuiltinModule('node:zlib');
  // Flushing on every chunk, as undici does, so server-sent events compressed with a sync flush arrive one by one.
  const options = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const decoder =
    coding === 'br' ? zlib.createBrotliDecompress() : coding === 'deflate' ? zlib.createInflate(options) : zlib.createGunzip(options);
  return message.pipe(decoder);
}
