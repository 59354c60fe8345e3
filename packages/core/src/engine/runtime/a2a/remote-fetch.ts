import { LegionError } from '../../../kernel/index.js';

/** Redirects one request may follow: a card moved once or twice is normal, a chain longer than this is not. */
const MAX_REDIRECTS = 5;

export interface RemoteFetchOptions {
  /** Headers by origin (`https://agents.example.com`), from the global config, `${env:…}` already expanded. */
  headersByOrigin: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The most one response body may hold; past it the body errors. */
  maxResponseBytes: number;
  /**
   * The same for a stream (`text/event-stream`): each event repeats the task's ids and JSON around a few
   * words, so a long answer streamed word by word is many times its text on the wire.
   */
  maxStreamBytes: number;
  /** How long a response may send nothing (headers, or the next bytes of its body) before it is abandoned. */
  idleTimeoutMs: number;
  /** Aborts every request besides each one's own signal (a card read for a turn that is cancelled). */
  signal?: AbortSignal | undefined;
}

/**
 * The `fetch` the A2A client uses to reach a remote agent, which Legion does not trust: only http(s), a
 * bounded body, and a bound on silence. Credentials go by the origin of each request, never by the card that
 * named it: a card (or a redirect) pointing elsewhere reaches that host without them.
 */
export function createRemoteFetch(options: RemoteFetchOptions): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const signal = options.signal ? AbortSignal.any([request.signal, options.signal]) : request.signal;
    let url = new URL(request.url);
    let body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
    let method = request.method;
    for (let redirects = 0; ; redirects++) {
      assertHttp(url);
      const headers = new Headers(request.headers);
      for (const [name, value] of Object.entries(options.headersByOrigin[url.origin] ?? {})) headers.set(name, value);
      const response = await withIdleBound(
        (signal) => fetch(url, { method, headers, body, redirect: 'manual', signal }),
        signal,
        options.idleTimeoutMs,
        url,
      );
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) return bounded(response, options, signal, url);
      await response.body?.cancel();
      if (redirects >= MAX_REDIRECTS)
        throw new LegionError('remote_url_refused', `${url.origin} redirected more than ${MAX_REDIRECTS} times.`);
      url = new URL(location, url);
      // 303 (and, as browsers do, 301/302 after a POST) continue as a GET without the body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
    }
  };
}

function assertHttp(url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new LegionError(
      'remote_url_refused',
      `Refused ${url.protocol}// URL ${url.href.slice(0, 200)}: remote agents are reached over http or https only.`,
    );
}

/** Runs one request under the caller's signal and a timer for its response headers. */
async function withIdleBound(
  send: (signal: AbortSignal) => Promise<Response>,
  callerSignal: AbortSignal,
  idleTimeoutMs: number,
  url: URL,
): Promise<Response> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(callerSignal.reason);
  if (callerSignal.aborted) onAbort();
  else callerSignal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(silenceError(url, idleTimeoutMs)), idleTimeoutMs);
  try {
    return await send(controller.signal);
  } finally {
    clearTimeout(timer);
    callerSignal.removeEventListener('abort', onAbort);
  }
}

/** The response with a body that errors past `maxResponseBytes`, or after `idleTimeoutMs` without bytes. */
function bounded(response: Response, options: RemoteFetchOptions, signal: AbortSignal, url: URL): Response {
  const source = response.body;
  if (!source) return response;
  const reader = source.getReader();
  const maxBytes = (response.headers.get('content-type') ?? '').includes('text/event-stream')
    ? options.maxStreamBytes
    : options.maxResponseBytes;
  let received = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const silence = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(silenceError(url, options.idleTimeoutMs)), options.idleTimeoutMs);
      });
      const aborted = new Promise<never>((_resolve, reject) => {
        onAbort = () => reject(signal.reason);
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        const chunk = await Promise.race([reader.read(), silence, aborted]);
        if (chunk.done) return controller.close();
        received += chunk.value.byteLength;
        if (received > maxBytes) {
          throw new LegionError(
            'remote_too_large',
            `${url.origin} sent more than ${maxBytes} bytes in one response (the limit follows limits.maxReplyBytes).`,
          );
        }
        controller.enqueue(chunk.value);
      } catch (error) {
        void reader.cancel().catch(() => undefined);
        controller.error(error);
      } finally {
        clearTimeout(timer);
        if (onAbort) signal.removeEventListener('abort', onAbort);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function silenceError(url: URL, idleTimeoutMs: number): LegionError {
  return new LegionError('remote_timeout', `${url.origin} sent nothing for ${Math.round(idleTimeoutMs / 1000)} s (limits.toolTimeoutMs).`);
}
