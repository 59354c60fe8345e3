import type { LegionErrorCode } from '@legion-collective/core';
import { originHost, sameToken } from '@legion-collective/server/local-origin';

/** A JSON-RPC error body (what an MCP or A2A client shows) with the HTTP status: what is wrong and the fix. */
export function refusal(status: number, code: LegionErrorCode, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32_001, message, data: { code } }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** How a refusal names the server that refused: the protocol's server, the command that printed its URL, and the token's variable. */
export interface GuardedServer {
  /** `MCP server`, `A2A server`. */
  kind: string;
  /** `legion mcp serve`. */
  command: string;
  /** `LEGION_MCP_TOKEN`. */
  tokenEnv: string;
}

export const MCP_SERVER: GuardedServer = { kind: 'MCP server', command: 'legion mcp serve', tokenEnv: 'LEGION_MCP_TOKEN' };

/**
 * Checks a request before the protocol's transport sees it: the `Host` must be
 * this server's (a web page that re-points its DNS name at 127.0.0.1 arrives
 * with its own name), an `Origin`, when sent, must be this server's (no web
 * page may call it), and the bearer token must match (`token: undefined`: a
 * public document such as an A2A agent card, which needs none). Returns the
 * refusal, or nothing when the request may go on.
 */
export function guardRequest(
  request: Request,
  options: { token: string | undefined; hosts: Set<string>; server?: GuardedServer },
): Response | undefined {
  const server = options.server ?? MCP_SERVER;
  const host = request.headers.get('host')?.toLowerCase();
  if (!host || !options.hosts.has(host)) {
    return refusal(
      421,
      'wrong_host',
      `This ${server.kind} answers requests to ${[...options.hosts].join(', ')}, not to "${host ?? '(no Host header)'}". Use the URL ${server.command} printed.`,
    );
  }
  const origin = request.headers.get('origin');
  if (origin !== null && !options.hosts.has(originHost(origin))) {
    const client = server.kind.replace(/ server$/, ' client');
    return refusal(
      403,
      'forbidden_origin',
      `Requests from the page at ${origin} are refused: a web page may not call this ${server.kind}. Connect from an ${client} (not a browser page) with the URL ${server.command} printed.`,
    );
  }
  if (options.token === undefined) return undefined;
  const bearer = request.headers.get('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (!sameToken(bearer, options.token)) {
    return refusal(
      401,
      'unauthorized',
      `${bearer === undefined ? 'This request has no access token' : 'The access token is wrong'}: send the header "Authorization: Bearer <token>" with the token ${server.command} printed (or the one given with --token / ${server.tokenEnv}).`,
      { 'www-authenticate': 'Bearer realm="legion"' },
    );
  }
  return undefined;
}
