import { randomBytes } from 'node:crypto';
import { LegionError } from '@legion-collective/core';
import { ActiveCalls } from '../mcp-serve/active-calls.js';
import { servedCallerAndAgents } from '../mcp-serve/exposed-agents.js';
import { mcpSurface } from '../mcp-serve/mcp-surface.js';
import { InputRounds } from '../mcp-serve/input-rounds.js';
import type { ServeContext } from '../mcp-serve/serve-context.js';
import { serveStdio } from '../mcp-serve/stdio-transport.js';
import { openLegion, resolveWorkspace } from '../workspace.js';
import { accessTokenFrom } from './access-token-option.js';
import { LOOPBACK, portOf } from './listen-address.js';
import { stderr } from '../render/terminal-text.js';

declare const LEGION_VERSION: string;

export interface McpServeOptions {
  http?: boolean;
  port?: string;
  host?: string;
  token?: string;
  tokenFile?: string;
  workspace?: string;
}

/**
 * `legion mcp serve`: the collective as an MCP server, over stdio (one client,
 * the process that started it) or Streamable HTTP (`--http`: any number of
 * clients with the token), until the client or Ctrl-C ends it. Nothing but MCP
 * goes to standard output: messages for people go to standard error.
 */
export async function mcpServeCommand(options: McpServeOptions): Promise<number> {
  const http = options.http === true;
  if (
    !http &&
    (options.port !== undefined || options.host !== undefined || options.token !== undefined || options.tokenFile !== undefined)
  ) {
    throw new LegionError(
      'usage',
      '--port, --host, --token and --token-file are for the HTTP transport: add --http (without it, legion mcp serve speaks MCP on standard input and output).',
    );
  }
  const port = portOf(options.port);
  const host = options.host ?? '127.0.0.1';
  const given = http
    ? accessTokenFrom({
        flag: options.token,
        file: options.tokenFile,
        envName: 'LEGION_MCP_TOKEN',
        env: process.env,
        warn: (line) => stderr.write(`${line}\n`),
      })
    : undefined;
  const token = given ?? randomBytes(32).toString('base64url');
  const root = resolveWorkspace(options.workspace);
  // Where the workspace keeps its sessions (files, or PostgreSQL by LEGION_DATABASE_URL / "storage"), as every command.
  const legion = await openLegion({ root });
  const calls = new ActiveCalls(legion);
  let detach: (() => void) | undefined;
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const { caller, exposed } = servedCallerAndAgents(legion, 'MCP');
    const context: ServeContext = {
      legion,
      caller,
      exposed,
      calls,
      rounds: new InputRounds(),
      version: typeof LEGION_VERSION === 'string' ? LEGION_VERSION : '0.0.0',
    };
    detach = legion.attachUser(mcpSurface(calls, caller, { questionWaitMs: legion.config.mcpServe.questionWaitSeconds * 1000 }));
    for (const warning of legion.warnings) stderr.write(`legion: warning: ${warning}\n`);
    if (!http) {
      stderr.write(`legion mcp serve: ${root} over stdio, as "${caller.id}"; asks: ${exposed.map((agent) => agent.id).join(', ')}\n`);
      await serveStdio(context, stop.signal);
      await calls.shutdown('the MCP client closed the connection');
      return 0;
    }
    let serving;
    try {
      // Loaded only for --http: the HTTP server (and the fetch globals it touches) would slow a stdio client's first answer.
      const { serveHttp } = await import('../mcp-serve/http-transport.js');
      const { sessionIdleSeconds, maxSessions } = legion.config.mcpServe;
      const sessions = {
        idleMs: sessionIdleSeconds * 1000,
        max: maxSessions,
        onExpired: (id: string) =>
          stderr.write(`legion mcp serve: closed MCP session ${id}, idle for ${sessionIdleSeconds} s (mcpServe.sessionIdleSeconds)\n`),
      };
      serving = await serveHttp(context, { host, port, token, sessions });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE')
        throw new LegionError('usage', `Port ${port} is in use: give another with --port, or leave it out for a free one.`);
      if (code === 'EADDRNOTAVAIL')
        throw new LegionError('usage', `This machine has no address ${host}: give one of its addresses with --host (default 127.0.0.1).`);
      throw error;
    }
    if (!LOOPBACK.has(host))
      stderr.write(
        `legion: warning: serving on ${host}, reachable from other machines; anyone with the token can act as "${caller.id}" in this workspace.\n`,
      );
    stderr.write(`Legion MCP server (Streamable HTTP) for ${root} at ${serving.url}\n`);
    stderr.write(`Access token: ${token}\n`);
    stderr.write(`Clients send "Authorization: Bearer <token>". Press Ctrl-C to stop.\n`);
    await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
    stderr.write('Stopping the MCP server…\n');
    await calls.shutdown('legion mcp serve is shutting down');
    await serving.close();
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    detach?.();
    calls.dispose();
    await legion.close();
  }
}
