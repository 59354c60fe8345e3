import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import {
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isInitializeRequest,
  isLegacyRequest,
  readRequestBody,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { allowedHosts } from '@legion-collective/server/local-origin';
import { serveLocally } from '@legion-collective/server/node-serve';
import { guardRequest, refusal } from './http-guard.js';
import { createMcpServer } from './mcp-server.js';
import { McpSessions, type SessionLimits } from './mcp-sessions.js';
import type { ServeContext } from './serve-context.js';

export const MCP_PATH = '/mcp';

export interface HttpServing {
  url: string;
  close(): Promise<void>;
}

/**
 * Streamable HTTP at `/mcp`, for clients of every revision the SDK serves.
 * On the 2025 revisions each client's `initialize` opens an MCP session (its
 * own server over the shared Legion), later requests carry its
 * `Mcp-Session-Id`; sessions are bounded (idle ones close, past the limit
 * `initialize` is refused): see McpSessions. A 2026-07-28 request carries the
 * revision in its own `_meta` envelope and is served on its own by the SDK's
 * handler, with no session. Every request passes the guard first.
 */
export async function serveHttp(
  context: ServeContext,
  options: { host: string; port: number; token: string; sessions: SessionLimits },
): Promise<HttpServing> {
  const sessions = new McpSessions(options.sessions);
  // 2025-era traffic never reaches it: it goes to the sessions below, which the SDK's stateless fallback would not keep.
  const modern = createMcpHandler(({ era }) => createMcpServer(context, era), { legacy: 'reject' });
  let hosts = new Set<string>();

  const handle = async (request: Request): Promise<Response> => {
    const refused = guardRequest(request, { token: options.token, hosts });
    if (refused) return refused;
    const path = new URL(request.url).pathname;
    if (path !== MCP_PATH) return refusal(404, 'not_found', `Nothing at ${path}: the MCP endpoint is ${MCP_PATH}.`);
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const answered = await sessions.handle(id, request);
      // 404 is what the spec tells a client to answer by initializing a new session.
      return (
        answered ??
        refusal(
          404,
          'unknown_session',
          `No MCP session "${id}" (it ended, expired after being idle, or the server restarted): initialize a new one.`,
        )
      );
    }
    if (request.method !== 'POST')
      return refusal(400, 'no_session', `${request.method} ${MCP_PATH} needs an Mcp-Session-Id header: send "initialize" (POST) first.`);
    // Bounded as the SDK's transport bounds the requests of a session (4 MiB): by Content-Length unread, else as it streams in.
    const read = await readRequestBody(request, DEFAULT_MAX_REQUEST_BODY_SIZE);
    if (read.tooLarge) {
      return refusal(
        413,
        'payload_too_large',
        `The body of POST ${MCP_PATH} is over the limit of ${DEFAULT_MAX_REQUEST_BODY_SIZE / 1_048_576} MiB (${DEFAULT_MAX_REQUEST_BODY_SIZE} bytes) for one request: send less.`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(read.text);
    } catch {
      return refusal(400, 'bad_json', `POST ${MCP_PATH} takes a JSON-RPC message as JSON: the body could not be parsed.`);
    }
    // The SDK's own rule for which revision a request is of: a 2026-07-28 envelope in its `_meta`, or not.
    if (!(await isLegacyRequest(request, body))) return modern.fetch(request, { parsedBody: body });
    if (!isInitializeRequest(body))
      return refusal(
        400,
        'no_session',
        `This request has no Mcp-Session-Id header: send "initialize" first, then the session id it returns with every request.`,
      );
    const full = sessions.reserve();
    if (full) return full;
    let opened = false;
    try {
      const server = createMcpServer(context, 'legacy');
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          opened = true;
          sessions.opened(sessionId, { handle: (later) => transport.handleRequest(later), close: () => server.close() });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.forget(transport.sessionId);
      };
      await server.connect(transport);
      return await sessions.first(
        request,
        () => transport.handleRequest(request, { parsedBody: body }),
        () => transport.sessionId,
      );
    } finally {
      if (!opened) sessions.abandoned();
    }
  };

  const listening = await serveLocally({ fetch: handle, port: options.port, hostname: options.host });
  const port = (listening.address() as AddressInfo).port;
  hosts = allowedHosts(options.host, port);
  const urlHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${urlHost}:${port}${MCP_PATH}`,
    close: async () => {
      await sessions.closeAll();
      await modern.close();
      await new Promise<void>((resolve) => {
        listening.close(() => resolve());
        if ('closeAllConnections' in listening) listening.closeAllConnections();
      });
    },
  };
}
