import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LEGION } from '../legion-process.test-support.js';
import { connectHttp, mcpClient, serveMcpHttp, type HttpServed } from '../mcp-serve.test-support.js';

// `legion mcp serve` as a real process at its limits: a client that writes JSON-RPC lines to
// its standard input through a raw pipe (what an MCP client does), and HTTP requests to --http.

interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: number | string;
  result?: { tools?: Array<{ name: string }> };
  error?: { code: number; message: string };
}

/** `legion mcp serve` over stdio, and the JSON-RPC messages it wrote, one per line. */
function serveStdio(
  cwd: string,
  env: NodeJS.ProcessEnv,
): { child: ChildProcessWithoutNullStreams; answers: JsonRpcMessage[]; stderr(): string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [LEGION, 'mcp', 'serve'], { cwd, env });
  const answers: JsonRpcMessage[] = [];
  let buffer = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf('\n')) >= 0) {
      answers.push(JSON.parse(buffer.slice(0, end)) as JsonRpcMessage);
      buffer = buffer.slice(end + 1);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  return { child, answers, stderr: () => stderr, exited };
}

const line = (message: Record<string, unknown>): string => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;

describe('legion mcp serve at its limits', () => {
  let dir: string;
  const children: ChildProcessWithoutNullStreams[] = [];
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg'), LEGION_MCP_TOKEN: '' });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-mcp-limits-'));
    expect(spawnSync(process.execPath, [LEGION, 'init'], { cwd: dir, encoding: 'utf8', env: env() }).status).toBe(0);
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('over stdio: answers an 11 MB line with an error naming the limit, says so on stderr, and answers the next request', async () => {
    const served = serveStdio(dir, env());
    children.push(served.child);
    served.child.stdin.write(
      line({
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    );
    await expect.poll(() => served.answers.find((answer) => answer.id === 1)).toBeDefined();
    served.child.stdin.write(line({ method: 'notifications/initialized' }));
    // Its id first, as clients write it: the answer names the request, which fails at once instead of waiting.
    const huge = 'x'.repeat(11 * 1024 * 1024);
    served.child.stdin.write(line({ id: 2, method: 'tools/call', params: { name: 'ask_coordinator', arguments: { message: huge } } }));
    // Its id after the params: not read, so the error cannot name it.
    served.child.stdin.write(
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"ask_coordinator","arguments":{"message":"${huge}"}},"id":3}\n`,
    );
    served.child.stdin.write(line({ id: 4, method: 'tools/list' }));

    await expect.poll(() => served.answers.find((answer) => answer.id === 4), { timeout: 30_000 }).toBeDefined();
    const refused = served.answers.find((answer) => answer.id === 2);
    expect(refused?.error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(
        /^The message is 11\.0 MiB \(\d+ bytes\), over the limit of 10\.0 MiB for one message on standard input; it was not read\./,
      ),
    });
    const anonymous = served.answers.filter((answer) => answer.id === undefined && answer.error);
    expect(anonymous).toHaveLength(1);
    expect(anonymous[0]!.error!.message).toContain('over the limit of 10.0 MiB');
    expect(served.answers.find((answer) => answer.id === 3)).toBeUndefined();
    expect(served.answers.find((answer) => answer.id === 4)?.result?.tools?.map((tool) => tool.name)).toContain('ask_coordinator');
    expect(served.stderr()).toContain('legion mcp serve: refused a message on standard input (request id 2): The message is 11.0 MiB');
    // Still serving, and ends as usual when the client closes its side.
    served.child.stdin.end();
    expect(await served.exited).toBe(0);
  }, 60_000);

  it('over stdio: answers a line that is not JSON with a Parse error (-32700, no id) and one that is not JSON-RPC with Invalid Request, and goes on serving', async () => {
    const served = serveStdio(dir, env());
    children.push(served.child);
    served.child.stdin.write(
      line({
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    );
    await expect.poll(() => served.answers.find((answer) => answer.id === 1)).toBeDefined();
    served.child.stdin.write(line({ method: 'notifications/initialized' }));
    served.child.stdin.write('{"jsonrpc":"2.0","id":2,"method":"tools/list"\n');
    served.child.stdin.write('\n');
    served.child.stdin.write(`${JSON.stringify({ jsonrpc: '1.0', id: 3, method: 'tools/list' })}\n`);
    served.child.stdin.write(line({ id: 4, method: 'tools/list' }));

    await expect.poll(() => served.answers.find((answer) => answer.id === 4), { timeout: 30_000 }).toBeDefined();
    const parseErrors = served.answers.filter((answer) => answer.id === undefined && answer.error);
    expect(parseErrors).toEqual([
      {
        jsonrpc: '2.0',
        error: { code: -32700, message: expect.stringMatching(/^Parse error: the line is not JSON \(.+\); it was skipped\./) },
      },
    ]);
    expect(served.answers.find((answer) => answer.id === 3)?.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('not a JSON-RPC 2.0 message'),
    });
    expect(served.answers.find((answer) => answer.id === 4)?.result?.tools?.map((tool) => tool.name)).toContain('ask_coordinator');
    expect(served.stderr()).toContain('legion mcp serve: skipped a line on standard input: Parse error');
    served.child.stdin.end();
    expect(await served.exited).toBe(0);
  }, 60_000);

  describe('over HTTP', () => {
    const servers: HttpServed[] = [];
    afterEach(async () => {
      for (const served of servers.splice(0)) {
        served.child.kill('SIGTERM');
        await served.exited;
      }
    });

    it('answers a 20 MB initialize body with 413 before reading it whole', async () => {
      const served = await serveMcpHttp(dir, env());
      servers.push(served);
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x'.repeat(20 * 1024 * 1024), version: '1' } },
      });
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const outgoing = request(
          {
            host: served.url.hostname,
            port: served.url.port,
            path: '/mcp',
            method: 'POST',
            // Chunked, with no Content-Length to refuse it by: counted as it arrives.
            headers: {
              authorization: `Bearer ${served.token}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'transfer-encoding': 'chunked',
            },
          },
          (incoming) => {
            let text = '';
            incoming.setEncoding('utf8');
            incoming.on('data', (chunk: string) => (text += chunk));
            incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text }));
          },
        );
        let answered = false;
        outgoing.on('response', () => (answered = true));
        outgoing.on('error', (error) => {
          if (!answered) reject(error);
        });
        outgoing.end(body);
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.text)).toMatchObject({
        error: { message: expect.stringContaining('over the limit of 4 MiB (4194304 bytes)') },
      });
    }, 60_000);

    it('takes its token from --token-file or LEGION_MCP_TOKEN, out of the process list; --token warns', async () => {
      const token = 'mcp-secret-token-of-some-length-0123';
      const commandLine = (served: HttpServed): string => readFileSync(`/proc/${served.child.pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      writeFileSync(join(dir, 'token'), `${token}\n`, { mode: 0o600 });
      const fromFile = await serveMcpHttp(dir, env(), ['--token-file', join(dir, 'token')]);
      servers.push(fromFile);
      expect(fromFile.token).toBe(token);
      expect(commandLine(fromFile)).not.toContain(token);
      expect(fromFile.stderr()).not.toContain('process list');
      const { client } = mcpClient();
      await connectHttp(client, fromFile);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('ask_coordinator');
      await client.close();
      const fromEnv = await serveMcpHttp(dir, { ...env(), LEGION_MCP_TOKEN: token });
      servers.push(fromEnv);
      expect(fromEnv.token).toBe(token);
      expect(commandLine(fromEnv)).not.toContain(token);
      const fromFlag = await serveMcpHttp(dir, env(), ['--token', token]);
      servers.push(fromFlag);
      expect(fromFlag.stderr()).toContain(
        'warning: --token is visible to every user of this machine in the process list (ps); give the token with LEGION_MCP_TOKEN or --token-file PATH instead.',
      );
    }, 60_000);
  });
});
