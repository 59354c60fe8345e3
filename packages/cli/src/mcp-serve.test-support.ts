import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { LEGION, runLegion } from './legion-process.test-support.js';

/** A `legion mcp serve --http` process, once it printed its URL and token. */
export interface HttpServed {
  child: ChildProcessWithoutNullStreams;
  url: URL;
  token: string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts `legion mcp serve --http ARGS` in `cwd` and resolves once it printed its URL and token. */
export function serveMcpHttp(cwd: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<HttpServed> {
  const child = spawn(process.execPath, [LEGION, 'mcp', 'serve', '--http', ...args], { cwd, env });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = stderr.match(/ at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/)?.[1];
      const token = stderr.match(/^Access token: (\S+)$/m)?.[1];
      if (url && token) resolve({ child, url: new URL(url), token, stderr: () => stderr, exited });
    });
    void exited.then((status) => reject(new Error(`legion mcp serve --http exited (${status}) before printing its URL: ${stderr}`)));
  });
}

/**
 * An MCP client (the SDK's `Client`) with elicitation when `elicit` answers forms; `revision` pins it
 * to the 2026-07-28 revision (where the same handler fulfils `input_required` rounds), else it speaks 2025-11-25.
 */
export function mcpClient(
  options: { elicit?: (message: string) => Record<string, unknown> | 'decline' | 'cancel'; revision?: '2026-07-28' } = {},
): {
  client: Client;
  elicited: string[];
} {
  const elicited: string[] = [];
  const client = new Client(
    { name: 'legion-test', version: '1.0.0' },
    {
      ...(options.elicit ? { capabilities: { elicitation: { form: {} } } } : {}),
      ...(options.revision ? { versionNegotiation: { mode: { pin: options.revision } } } : {}),
    },
  );
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler('elicitation/create', async (request) => {
      const message = request.params.message;
      elicited.push(message);
      const decided = answer(message);
      return typeof decided === 'string' ? { action: decided } : { action: 'accept', content: decided as Record<string, string> };
    });
  }
  return { client, elicited };
}

/** Connects over Streamable HTTP with the server's token. */
export async function connectHttp(client: Client, served: HttpServed): Promise<void> {
  await client.connect(
    new StreamableHTTPClientTransport(served.url, { requestInit: { headers: { authorization: `Bearer ${served.token}` } } }),
  );
}

/** Starts `legion mcp serve` over stdio as the client's child process and connects. */
export async function connectStdio(client: Client, cwd: string, env: Record<string, string>): Promise<void> {
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [LEGION, 'mcp', 'serve'], cwd, env, stderr: 'pipe' }));
}

/**
 * A new workspace (the caller removes it) whose coordinator runs on `model` and has the Legion
 * in `inner` as its MCP server "team" (`legion -w INNER mcp serve`, with the model server's
 * address passed on): one Legion delegating to another.
 */
export async function outerWorkspace(inner: string, model: Record<string, unknown>, env: NodeJS.ProcessEnv): Promise<string> {
  const outer = mkdtempSync(join(tmpdir(), 'legion-mcp-outer-'));
  const init = await runLegion(['init'], { cwd: outer, env, timeoutMs: 30_000 });
  if (init.status !== 0) throw new Error(`legion init failed in ${outer}: ${init.stderr}`);
  const participant = join(outer, '.legion/collective/participants/coordinator.json');
  writeFileSync(participant, JSON.stringify({ ...JSON.parse(readFileSync(participant, 'utf8')), model }, null, 2));
  const config = join(outer, '.legion/config.json');
  const server = {
    command: process.execPath,
    args: [LEGION, '-w', inner, 'mcp', 'serve'],
    env: {
      ANTHROPIC_API_KEY: '${env:ANTHROPIC_API_KEY}',
      ANTHROPIC_BASE_URL: '${env:ANTHROPIC_BASE_URL}',
      XDG_CONFIG_HOME: join(inner, '.xdg'),
    },
  };
  writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), mcpServers: { team: server } }, null, 2));
  return outer;
}

/** A tool call's result as the tests read it. */
export interface ToolOutcome {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The text blocks of a tool result, joined. */
export const textOf = (result: ToolOutcome): string => result.content.map((block) => block.text ?? '').join('');

/**
 * The MCP clients and `legion mcp serve --http` processes a test opens (push them here), closed after
 * each test; and the environment they run in: the test process's, with the workspace's on top.
 */
export function useMcpProcesses(env: () => Record<string, string>): {
  clients: Client[];
  servers: HttpServed[];
  processEnv(): Record<string, string>;
} {
  const clients: Client[] = [];
  const servers: HttpServed[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const served of servers.splice(0)) {
      served.child.kill('SIGTERM');
      await served.exited;
    }
  });
  const processEnv = (): Record<string, string> => {
    const merged: Record<string, string> = {};
    for (const [key, value] of Object.entries({ ...process.env, ...env() })) if (value !== undefined) merged[key] = value;
    return merged;
  };
  return { clients, servers, processEnv };
}
