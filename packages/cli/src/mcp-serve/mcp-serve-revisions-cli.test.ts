import { Client, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { LEGION } from '../legion-process.test-support.js';
import { serveMcpHttp, textOf, useMcpProcesses, type HttpServed, type ToolOutcome } from '../mcp-serve.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// `legion mcp serve` (a real process, over stdio and Streamable HTTP) and MCP clients of each protocol
// revision it serves, built with the official SDK's Client pinned to that revision: 2025-06-18 and
// 2025-11-25 open with `initialize`; 2026-07-28 opens with `server/discover` and carries the revision in
// every request's `_meta`, with no session. The agents' models are aimock on 127.0.0.1.

/** How a client is made to speak one revision (and only that one). */
const REVISIONS: Record<string, ClientOptions> = {
  '2025-06-18': { supportedProtocolVersions: ['2025-06-18'] },
  '2025-11-25': { supportedProtocolVersions: ['2025-11-25'] },
  '2026-07-28': { versionNegotiation: { mode: { pin: '2026-07-28' } } },
};

const TOOLS = ['ask_coordinator', 'list_participants', 'list_sessions', 'read_conversation', 'list_approvals', 'answer_approval'];

describe('legion mcp serve, to MCP clients of each protocol revision', () => {
  const workspace = useWorkspace('legion-mcp-revisions-');
  const { mock, env, useModel } = workspace;
  const { clients, servers, processEnv } = useMcpProcesses(env);

  const scriptCoordinator = (): void => {
    useModel('coordinator', { provider: 'anthropic', model: 'claude-coord', baseURL: mock.url });
    mock.on({ model: 'claude-coord', userMessage: 'Say hello' }, { content: 'Hello from Legion.' });
  };
  const http = async (): Promise<HttpServed> => {
    const served = await serveMcpHttp(workspace.dir, processEnv());
    servers.push(served);
    return served;
  };
  const newClient = (options: ClientOptions): Client => {
    const client = new Client({ name: 'revision-test', version: '1.0.0' }, options);
    clients.push(client);
    return client;
  };
  const stdioTransport = (): StdioClientTransport =>
    new StdioClientTransport({
      command: process.execPath,
      args: [LEGION, 'mcp', 'serve'],
      cwd: workspace.dir,
      env: processEnv(),
      stderr: 'pipe',
    });
  const httpTransport = (served: HttpServed): StreamableHTTPClientTransport =>
    new StreamableHTTPClientTransport(served.url, { requestInit: { headers: { authorization: `Bearer ${served.token}` } } });

  /** Lists the tools and asks the coordinator, as any client does. */
  const listAndAsk = async (client: Client): Promise<void> => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
    const result = (await client.callTool(
      { name: 'ask_coordinator', arguments: { message: 'Say hello' } },
      { timeout: 60_000 },
    )) as ToolOutcome;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(textOf(result)).toBe('Hello from Legion.');
    expect(result.structuredContent).toMatchObject({ status: 'success', conversationId: 'mcp__coordinator' });
  };

  for (const [revision, options] of Object.entries(REVISIONS)) {
    it(`over stdio, a ${revision} client lists the tools and asks an agent`, async () => {
      scriptCoordinator();
      const client = newClient(options);
      await client.connect(stdioTransport());
      expect(client.getNegotiatedProtocolVersion()).toBe(revision);
      await listAndAsk(client);
    }, 90_000);

    it(`over HTTP, a ${revision} client lists the tools and asks an agent`, async () => {
      scriptCoordinator();
      const served = await http();
      const client = newClient(options);
      await client.connect(httpTransport(served));
      expect(client.getNegotiatedProtocolVersion()).toBe(revision);
      await listAndAsk(client);
    }, 90_000);
  }

  it('a client that negotiates (mode "auto", as Legion\'s own) gets the newest revision, over stdio and HTTP', async () => {
    scriptCoordinator();
    const overStdio = newClient({ versionNegotiation: { mode: 'auto' } });
    await overStdio.connect(stdioTransport());
    expect(overStdio.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const served = await http();
    const overHttp = newClient({ versionNegotiation: { mode: 'auto' } });
    await overHttp.connect(httpTransport(served));
    expect(overHttp.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    await listAndAsk(overHttp);
  }, 90_000);

  it('over HTTP, a 2026-07-28 request without the bearer token is refused like any other', async () => {
    const served = await http();
    const client = newClient(REVISIONS['2026-07-28']!);
    await expect(client.connect(new StreamableHTTPClientTransport(served.url))).rejects.toThrow(/401|[Uu]nauthori[sz]ed|token/);
  }, 60_000);
});
