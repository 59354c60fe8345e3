import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServerConnection } from './McpServerConnection.js';
import type { McpElicitation } from './elicitation.js';
import type { McpServerConfig } from '../../../team/index.js';

// Legion's MCP client against servers of each protocol revision, each built with the official SDK
// (__fixtures__/revision-server.mjs) and run as a real process: it negotiates (server/discover, then
// initialize for a server that does not know it), lists and calls tools, and its user answers what the
// server asks, whether as an elicitation/create request (2025) or an input_required round (2026-07-28).

const SERVER = fileURLToPath(new URL('./__fixtures__/revision-server.mjs', import.meta.url));

const connections: McpServerConnection[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

function connect(config: McpServerConfig, asked: McpElicitation[]): McpServerConnection {
  const connection = new McpServerConnection('revision', config, {
    workspaceRoot: process.cwd(),
    env: {},
    onToolsChanged: () => undefined,
    onUnexpectedExit: () => undefined,
    elicit: async (request) => {
      asked.push(request);
      return { action: 'accept', content: { go: true } };
    },
  });
  connections.push(connection);
  return connection;
}

const textOf = (result: { content?: unknown }): string =>
  (result.content as Array<{ type: string; text?: string }>).map((block) => block.text ?? '').join('');

/** The revision-server over HTTP: its URL, once it printed it. */
function serveOverHttp(): Promise<string> {
  const child = spawn(process.execPath, [SERVER, '2026-07-28', '--http'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = out.match(/^(http:\S+)\n/)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (status) => reject(new Error(`revision-server exited (${status})`)));
  });
}

describe("Legion's MCP client, against servers of each protocol revision", () => {
  for (const revision of ['2025-06-18', '2025-11-25', '2026-07-28']) {
    it(`over stdio, a ${revision} server: lists and calls its tools in that revision, and its question reaches the user`, async () => {
      const asked: McpElicitation[] = [];
      const connection = connect({ command: process.execPath, args: [SERVER, revision] }, asked);

      expect((await connection.listTools()).map((tool) => tool.name)).toEqual(['revision', 'confirm']);
      const served = await connection.callTool('revision', {}, { signal: new AbortController().signal });
      expect(textOf(served)).toBe(revision);
      const confirmed = await connection.callTool('confirm', {}, { signal: new AbortController().signal });
      expect(textOf(confirmed)).toBe('go');
      expect(asked).toEqual([expect.objectContaining({ server: 'revision', mode: 'form', message: 'Go ahead?' })]);
    }, 60_000);
  }

  it('a 2026-07-28 server that died is started again in the same revision, without asking it again', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'legion-mcp-revision-')), 'starts.log');
    const connection = connect({ command: process.execPath, args: [SERVER, '2026-07-28'], env: { REVISION_SERVER_LOG: log } }, []);
    expect(textOf(await connection.callTool('revision', {}, { signal: new AbortController().signal }))).toBe('2026-07-28');
    // The SDK asks on a sibling process it then stops, and starts the server for good once it knows the revision.
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(2);
    const first = connection.pid!;
    process.kill(first, 'SIGKILL');
    await vi.waitFor(() => expect(connection.pid).toBeUndefined(), { timeout: 10_000 });

    // The revision it spoke is remembered (the SDK's prior verdict): a server that refuses initialize is still reached.
    expect(textOf(await connection.callTool('revision', {}, { signal: new AbortController().signal }))).toBe('2026-07-28');
    expect(connection.pid).not.toBe(first);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(3);
    rmSync(dirname(log), { recursive: true, force: true });
  }, 60_000);

  it('over HTTP, a 2026-07-28 server (which refuses initialize): lists and calls its tools, and its question reaches the user', async () => {
    const asked: McpElicitation[] = [];
    const connection = connect({ url: await serveOverHttp() }, asked);

    expect((await connection.listTools()).map((tool) => tool.name)).toEqual(['revision', 'confirm']);
    expect(textOf(await connection.callTool('revision', {}, { signal: new AbortController().signal }))).toBe('2026-07-28');
    expect(textOf(await connection.callTool('confirm', {}, { signal: new AbortController().signal }))).toBe('go');
    expect(asked).toHaveLength(1);
  }, 60_000);
});
