import { randomBytes } from 'node:crypto';
import { LegionError } from '@legion-collective/core';
import { callContextsOf } from '../a2a-serve/serve-context.js';
import { ActiveCalls } from '../mcp-serve/active-calls.js';
import { servedCallerAndAgents } from '../mcp-serve/exposed-agents.js';
import { openLegion, resolveWorkspace } from '../workspace.js';
import { accessTokenFrom } from './access-token-option.js';
import { LOOPBACK, portOf } from './listen-address.js';
import { stderr } from '../render/terminal-text.js';

declare const LEGION_VERSION: string;

export interface A2aServeOptions {
  port?: string;
  host?: string;
  token?: string;
  tokenFile?: string;
  workspace?: string;
}

/**
 * `legion a2a serve`: each exposed agent (`mcpServe.expose`, as for `legion mcp serve`) as an A2A
 * agent over JSON-RPC on 127.0.0.1, with its card, for agents of other frameworks; every request
 * but the cards needs the bearer token. Runs until Ctrl-C; running tasks are cancelled then.
 */
export async function a2aServeCommand(options: A2aServeOptions): Promise<number> {
  const port = portOf(options.port);
  const host = options.host ?? '127.0.0.1';
  const given = accessTokenFrom({
    flag: options.token,
    file: options.tokenFile,
    envName: 'LEGION_A2A_TOKEN',
    env: process.env,
    warn: (line) => stderr.write(`${line}\n`),
  });
  const token = given ?? randomBytes(32).toString('base64url');
  const root = resolveWorkspace(options.workspace);
  const legion = await openLegion({ root });
  const calls = new ActiveCalls(legion);
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    // A2A clients stand where MCP clients do: the same caller, with the same approval authority, so the rules match.
    const { caller, exposed } = servedCallerAndAgents(legion, 'A2A');
    for (const warning of legion.warnings) stderr.write(`legion: warning: ${warning}\n`);
    let serving;
    try {
      // Loaded only here: the A2A SDK is a chunk no other command reads.
      const { serveA2a } = await import('../a2a-serve/http-transport.js');
      serving = await serveA2a(
        { legion, caller, calls, callContext: callContextsOf(caller) },
        {
          host,
          port,
          token,
          agents: exposed,
          version: typeof LEGION_VERSION === 'string' ? LEGION_VERSION : '0.0.0',
          warn: (line) => stderr.write(`${line}\n`),
        },
      );
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
    stderr.write(`Legion A2A server for ${root} at ${serving.url}\n`);
    for (const agent of serving.agents) stderr.write(`  ${agent.id}: ${agent.url} (card: ${agent.url}/.well-known/agent-card.json)\n`);
    stderr.write(`Access token: ${token}\n`);
    stderr.write(`Clients send "Authorization: Bearer <token>"; the agent cards are public. Press Ctrl-C to stop.\n`);
    await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
    stderr.write('Stopping the A2A server…\n');
    await calls.shutdown('legion a2a serve is shutting down');
    await serving.close();
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    calls.dispose();
    await legion.close();
  }
}
