import type { LegionErrorCode } from '@legion-collective/core';
import { originHost, sameToken } from '@legion-collective/server/local-origin';

/** A JSON-RPC error body (what an MCP client shows) with the HTTP status: what is wrong and the fix. */
export function refusal(status: number, code: LegionErrorCode, message: string, headers: Record<string, string> = {}): Response {
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
    return refusal(
      421,
      'wrong_host',
      `This MCP server answers requests to ${[...options.hosts].join(', ')}, not to "${host ?? '(no Host header)'}". Use the URL legion mcp serve printed.`,
    );
  }
  const origin = request.headers.get('origin');
  if (origin !== null && !options.hosts.has(originHost(origin))) {
    return refusal(
      403,
      'forbidden_origin',
      `Requests from the page at ${origin} are refused: a web page may not call this MCP server. Connect from an MCP client (not a browser page) with the URL legion mcp serve printed.`,
    );
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
