/**
 * What nodeHttpFetch sends after a redirect, by the Fetch standard's "HTTP-redirect fetch" (as
 * undici does it, lib/web/fetch/index.js `httpRedirectFetch`), with one rule stricter than it: a
 * hop to another origin carries none of the caller's own headers (see KEPT_ACROSS_ORIGINS).
 */

/** One request of a redirect chain: where, how, with what. The body is bytes already, so a 307/308 can send it again. */
export interface HopRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** The standard's limit, after which undici fails with "redirect count exceeded". */
export const MAX_REDIRECTS = 20;

/** Headers that describe the body; they go when a redirect turns the request into a body-less GET. */
const BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length'];

/**
 * The only headers that follow a redirect to another origin (another scheme, host or port;
 * https→http among them). The standard drops `authorization`, `cookie` and
 * `proxy-authorization` only, and leaves the rest, so a provider SDK's key in `x-api-key`
 * (Anthropic), `api-key` (Azure OpenAI), `x-goog-api-key` or any header a user configured
 * would reach whatever host a hostile or mistaken base URL redirects to. A list of what may go
 * is the one that cannot miss a credential under a name not thought of: everything here says
 * what the client accepts or what the body is, nothing who the caller is.
 */
const KEPT_ACROSS_ORIGINS = new Set(['accept', 'accept-encoding', 'accept-language', 'user-agent', ...BODY_HEADERS]);

/**
 * The request to send for a redirect `status` with `location` answering `current`, or the reason
 * the chain fails (undici's network errors, which reject with `TypeError('fetch failed')`).
 */
export function redirectedRequest(current: HopRequest, status: number, location: string): HopRequest | Error {
  let next: URL;
  try {
    // node:http reads header bytes as latin1; undici reads a Location's bytes as UTF-8, so a non-ASCII one leads to the same place.
    next = new URL(Buffer.from(location, 'latin1').toString('utf8'), current.url);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') return new Error('URL scheme must be a HTTP(S) scheme');
  // As undici (a fetch's mode is "cors"): credentials the server names in a Location are refused, not sent as basic auth by node:http.
  if (next.username !== '' || next.password !== '') return new Error('cross origin not allowed for request mode "cors"');
  if (!next.hash) next.hash = current.url.hash;
  let { method, body } = current;
  const headers = { ...current.headers };
  if (((status === 301 || status === 302) && method === 'POST') || (status === 303 && method !== 'GET' && method !== 'HEAD')) {
    method = 'GET';
    body = undefined;
    for (const name of BODY_HEADERS) delete headers[name];
  }
  if (next.origin !== current.url.origin) {
    for (const name of Object.keys(headers)) if (!KEPT_ACROSS_ORIGINS.has(name)) delete headers[name];
  }
  return { url: next, method, headers, body };
}
