import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { LegionError } from '@legion-collective/core';
import { serveAcp } from '../acp/acp-agent.js';
import { stderr } from '../render/terminal-text.js';
import { openLegion, resolveWorkspace } from '../workspace.js';

declare const LEGION_VERSION: string;

export interface AcpOptions {
  as?: string;
  workspace?: string;
}

/**
 * `legion acp`: the collective as an Agent Client Protocol agent on standard input and output, for
 * the editor that started it (Zed, a JetBrains IDE, an Neovim or Emacs plugin), until it closes the
 * connection. Nothing but ACP goes to standard output: messages for people go to standard error.
 */
export async function acpCommand(options: AcpOptions): Promise<number> {
  const root = resolveWorkspace(options.workspace);
  const legion = await openLegion({ root });
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    if (legion.collective.agents().length === 0)
      throw new LegionError('no_agents', 'The collective has no agent to answer the editor: add one (legion agents add) first.');
    if (options.as !== undefined && legion.collective.get(options.as)?.type !== 'user')
      throw new LegionError('usage', `--as names the user participant the editor speaks as; "${options.as}" is not one.`);
    for (const warning of legion.warnings) stderr.write(`legion: warning: ${warning}\n`);
    stderr.write(`legion acp: ${root} over stdio; the entry agent is ${legion.entryAgentId()}\n`);
    const stream = ndJsonStream(
      Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
    );
    await serveAcp(legion, stream, {
      as: options.as,
      stop: stop.signal,
      version: typeof LEGION_VERSION === 'string' ? LEGION_VERSION : '0.0.0',
    });
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await legion.close();
  }
}
