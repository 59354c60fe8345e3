/**
 * Node's own fetch (undici), with one rule added where the Fetch standard is too lenient for a
 * client that carries API keys: a redirect to another origin (another scheme, host or port;
 * https→http among them) carries none of the caller's headers but those saying what it accepts and
 * what the body is. The standard, and undici, drop only `authorization`, `cookie` and
 * `proxy-authorization` there, so a provider SDK's key in `x-api-key` (Anthropic), `api-key` (Azure
 * OpenAI), `x-goog-api-key` or any header a user configured would reach whatever host a hostile or
 * mistaken base URL redirects to.
 *
 * Everything else is undici's: the connection, TLS, compression, streaming, aborts, proxies, a URL
 * with credentials refused. To apply the rule, a request that would follow redirects is sent with
 * `redirect: 'manual'` and each hop is sent again through the global fetch, changed only as
 * undici's `httpRedirectFetch` would change it (lib/web/fetch/index.js): the same limit of 20, the
 * same method and body rules, the same failures. `redirect: 'manual'` or `'error'` from the caller
 * goes to the global fetch as it is: nothing is followed, so nothing can leak.
 *
 * The global fetch is read at each call, never when this module loads: Node loads undici on the
 * first use of `fetch`, `Headers`, `Request` or `Response` (some 35 ms of CPU), which a command that
 * sends no request (`legion sessions`, `legion --help`, the REPL until its first message) must not
 * pay. It also means a fetch the user installs on `globalThis` is the one used.
 */
export async function redirectSafeFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const fetch = globalThis.fetch;
  const isRequest = typeof input === 'object' && !(input instanceof URL);
  const mode = init.redirect ?? (isRequest ? input.redirect : 'follow');
  if (mode !== 'follow') return fetch(input, init);

  let response = await fetch(input, { ...init, redirect: 'manual' });
  let hop: Hop = {
    // As the caller wrote it, fragment included: a Location without one inherits it.
    url: new URL(isRequest ? input.url : String(input)),
    method: (init.method ?? (isRequest ? input.method : 'GET')).toUpperCase(),
    headers: new Headers(init.headers ?? (isRequest ? input.headers : undefined)),
    body: repeatableBody(init.body ?? (isRequest ? input.body : null)),
  };
  const signal = init.signal ?? (isRequest ? input.signal : null);
  for (let redirects = 0; ; redirects++) {
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) {
      // The last hop's Response cannot know a chain led to it; its `redirected` is a getter, shadowed here.
      if (redirects > 0) Object.defineProperty(response, 'redirected', { value: true });
      return response;
    }
    // A redirect's body is nobody's to read; one that never ends must not hold the connection.
    await response.body?.cancel().catch(() => undefined);
    if (redirects === MAX_REDIRECTS) throw fetchFailed(new Error('redirect count exceeded'));
    const next = redirectedHop(hop, response.status, location);
    if (next instanceof Error) throw fetchFailed(next);
    hop = next;
    const body = hop.body === UNREPEATABLE ? null : hop.body;
    response = await fetch(hop.url, { ...init, method: hop.method, headers: hop.headers, body, signal, redirect: 'manual' });
  }
}

/** The body of a request that cannot be sent a second time (a stream). */
const UNREPEATABLE = Symbol('unrepeatable body');

/** A stream (web or async-iterable) is read once: a 307/308 that would send it again fails, as in undici. Strings, bytes, blobs and forms are sent anew. */
function repeatableBody(body: RequestInit['body']): Hop['body'] {
  const isStream = body instanceof ReadableStream || (typeof body === 'object' && body !== null && Symbol.asyncIterator in body);
  return isStream ? UNREPEATABLE : body;
}

/** One request of a redirect chain: where, how, with what. */
export interface Hop {
  url: URL;
  method: string;
  headers: Headers;
  body: RequestInit['body'] | typeof UNREPEATABLE;
}

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** The standard's limit, after which undici fails with "redirect count exceeded". */
export const MAX_REDIRECTS = 20;

/** Headers that describe the body; they go when a redirect turns the request into a body-less GET. */
const BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length'];

/**
 * The only headers that follow a redirect to another origin. A list of what may go is the one that
 * cannot miss a credential under a name not thought of: everything here says what the client
 * accepts or what the body is, nothing who the caller is.
 */
const KEPT_ACROSS_ORIGINS = new Set(['accept', 'accept-encoding', 'accept-language', 'user-agent', ...BODY_HEADERS]);

/** undici's network error: the SDKs turn it into their connection error. */
function fetchFailed(cause: Error): TypeError {
  return new TypeError('fetch failed', { cause });
}

/**
 * The request to send for a redirect `status` with `location` answering `current`, or the reason
 * the chain fails. Exported for the unit test of the rule itself.
 */
export function redirectedHop(current: Hop, status: number, location: string): Hop | Error {
  let url: URL;
  try {
    // Header values read as bytes; undici reads a Location's bytes as UTF-8, so a non-ASCII one leads to the same place.
    url = new URL(Buffer.from(location, 'latin1').toString('utf8'), current.url);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return new Error('URL scheme must be a HTTP(S) scheme');
  // As undici (a fetch's mode is "cors"): credentials the server names in a Location are refused.
  if (url.username !== '' || url.password !== '') return new Error('cross origin not allowed for request mode "cors"');
  if (!url.hash) url.hash = current.url.hash;
  let { method, body } = current;
  const headers = new Headers(current.headers);
  if (((status === 301 || status === 302) && method === 'POST') || (status === 303 && method !== 'GET' && method !== 'HEAD')) {
    method = 'GET';
    body = null;
    for (const name of BODY_HEADERS) headers.delete(name);
  } else if (body === UNREPEATABLE) {
    return new Error('the request body is a stream, which cannot be sent again to the redirect');
  }
  if (url.origin !== current.url.origin) {
    for (const name of [...headers.keys()]) if (!KEPT_ACROSS_ORIGINS.has(name)) headers.delete(name);
  }
  return { url, method, headers, body };
}
