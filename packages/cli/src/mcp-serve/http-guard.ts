import { timingSafeEqual } from 'node:crypto';
import { networkInterfaces } from 'node:os';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** `Host` values that reach this server: the loopback names, the `--host` given, and (listening on every address) this machine's. */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  if (WILDCARDS.has(host)) {
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) names.add(address.family === 'IPv6' ? `[${address.address}]` : address.address);
    }
  } else names.add(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
  return new Set([...names].map((name) => `${name}:${port}`.toLowerCase()));
}

/** A JSON-RPC error body (what an MCP client shows) with the HTTP status: what is wrong and the fix. */
export function refusal(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32_001, message, data: { code } }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * Checks a request before the MCP transport sees it: the `Host` must be this
 * server's (a web page that re-points its DNS name at 127.0.0.1 arrives with
 * its own name), an `Origin`, when sent, must be this server's (no web page
 * may call it), and the bearer token must match. Returns the refusal, or
 * nothing when the request may go on.
 */
export function guardRequest(request: Request, options: { token: string; hosts: Set<string> }): Response | undefined {
  const host = request.headers.get('host')?.toLowerCase();
  if (!host || !options.hosts.has(host)) {
    return refusal(421, 'wrong_host', `This MCP server answers requests to ${[...options.hosts].join(', ')}, not to "${host ?? '(no Host header)'}". Use the URL legion mcp serve printed.`);
  }
  const origin = request.headers.get('origin');
  if (origin !== null && !options.hosts.has(originHost(origin))) {
    return refusal(403, 'forbidden_origin', `Requests from the page at ${origin} are refused: a web page may not call this MCP server. Connect from an MCP client (not a browser page) with the URL legion mcp serve printed.`);
  }
  const bearer = request.headers.get('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (!sameToken(bearer, options.token)) {
    return refusal(
      401,
      'unauthorized',
      `${bearer === undefined ? 'This request has no access token' : 'The access token is wrong'}: send the header "Authorization: Bearer <token>" with the token legion mcp serve printed (or the one given with --token / LEGION_MCP_TOKEN).`,
      { 'www-authenticate': 'Bearer realm="legion"' },
    );
  }
  return undefined;
}

/** Compares in constant time: a token must not leak through how long a refusal takes. */
function sameToken(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `http://127.0.0.1:4000` → `127.0.0.1:4000`; anything unparseable matches nothing. */
function originHost(origin: string): string {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host.toLowerCase() : '';
  } catch {
    return '';
  }
}
