import { Client, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { LEGION } from '../legion-process.test-support.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  connectHttp,
  connectStdio,
  mcpClient,
  serveMcpHttp,
  textOf,
  useMcpProcesses,
  type HttpServed,
  type ToolOutcome,
} from '../mcp-serve.test-support.js';
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

  it('over HTTP, 2026-07-28 requests pass the same guard: refused without the bearer token, served with it', async () => {
    const served = await http();
    const refused = newClient(REVISIONS['2026-07-28']!);
    await expect(refused.connect(new StreamableHTTPClientTransport(served.url))).rejects.toThrow(/401|[Uu]nauthori[sz]ed|token/);
    const admitted = newClient(REVISIONS['2026-07-28']!);
    await admitted.connect(httpTransport(served));
    expect(admitted.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  }, 60_000);

  describe('on 2026-07-28, where a server sends no requests: what Legion asks its client, through input_required rounds', () => {
    const configure = (fields: Record<string, unknown>): void => {
      const file = join(workspace.dir, '.legion/config.json');
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), ...fields }, null, 2));
    };
    /** The coordinator hands the task to the developer, who writes notes.txt (which needs approval), then both reply. */
    const scriptDelegatedWrite = (): void => {
      useModel('coordinator', { provider: 'anthropic', model: 'claude-coord', baseURL: mock.url });
      useModel('developer', { provider: 'anthropic', model: 'claude-dev', baseURL: mock.url });
      mock.on(
        { model: 'claude-coord', userMessage: 'Take notes', hasToolResult: false },
        {
          toolCalls: [{ id: 'toolu_del', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Write notes.txt' }) }],
        },
      );
      mock.on(
        { model: 'claude-dev', userMessage: 'Write notes.txt', hasToolResult: false },
        { toolCalls: [{ id: 'toolu_write', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'hello' }) }] },
      );
      mock.on({ model: 'claude-dev', userMessage: 'Write notes.txt', hasToolResult: true }, { content: 'notes.txt is written.' });
      mock.on({ model: 'claude-coord', userMessage: 'Take notes', hasToolResult: true }, { content: 'The developer wrote notes.txt.' });
    };
    const connect = async (over: 'stdio' | 'HTTP', client: Client): Promise<void> => {
      clients.push(client);
      if (over === 'stdio') await connectStdio(client, workspace.dir, processEnv());
      else await connectHttp(client, await http());
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    };

    for (const over of ['stdio', 'HTTP'] as const) {
      it(`over ${over}: a delegate's approval the caller may give reaches the client's human, with progress on the way, and the turn goes on`, async () => {
        configure({ mcpServe: { caller: { approvalAuthority: '*' } } });
        scriptDelegatedWrite();
        const { client, elicited } = mcpClient({ elicit: () => ({ decision: 'approve' }), revision: '2026-07-28' });
        await connect(over, client);
        const progress: string[] = [];

        const result = (await client.callTool(
          { name: 'ask_coordinator', arguments: { message: 'Take notes' } },
          { timeout: 60_000, onprogress: (step) => progress.push(step.message ?? '') },
        )) as ToolOutcome;

        expect(textOf(result)).toBe('The developer wrote notes.txt.');
        expect(readFileSync(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('hello');
        expect(elicited).toHaveLength(1);
        expect(elicited[0]).toMatch(/^developer wants to run file_write/);
        // Progress from the first round (before the question) and from the retry (after the answer).
        expect(progress).toContain('coordinator asks developer');
        expect(progress.some((line) => line.startsWith('coordinator is working'))).toBe(true);
        expect(result.structuredContent).toMatchObject({ status: 'success', usage: { calls: 4 } });
      }, 90_000);
    }

    it('over HTTP, round by round (the SDK client in manual mode): the turn waits between rounds; a forged or replayed state is refused', async () => {
      configure({ mcpServe: { caller: { approvalAuthority: '*' } } });
      scriptDelegatedWrite();
      const client = new Client(
        { name: 'manual-rounds', version: '1.0.0' },
        {
          capabilities: { elicitation: { form: {} } },
          versionNegotiation: { mode: { pin: '2026-07-28' } },
          inputRequired: { autoFulfill: false },
        },
      );
      await connect('HTTP', client);
      const ask = (extra: Record<string, unknown>) =>
        client.callTool(
          { name: 'ask_coordinator', arguments: { message: 'Take notes' }, ...extra },
          { timeout: 60_000, allowInputRequired: true },
        ) as Promise<Record<string, unknown>>;

      const first = await ask({});
      expect(first).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
      const requests = first['inputRequests'] as Record<string, { method: string; params: { message: string } }>;
      const [key, request] = Object.entries(requests)[0]!;
      expect(request).toMatchObject({
        method: 'elicitation/create',
        params: { message: expect.stringMatching(/^developer wants to run file_write/) },
      });
      // Between rounds nothing is written: the turn waits on the answer.
      expect(existsSync(join(workspace.dir, 'notes.txt'))).toBe(false);

      const state = first['requestState'] as string;
      await expect(
        ask({ requestState: `${state}x`, inputResponses: { [key]: { action: 'accept', content: { decision: 'approve' } } } }),
      ).rejects.toThrow(/Invalid or expired requestState/);
      const answered = await ask({
        requestState: state,
        inputResponses: { [key]: { action: 'accept', content: { decision: 'approve' } } },
      });
      expect(textOf(answered as unknown as ToolOutcome)).toBe('The developer wrote notes.txt.');
      expect(readFileSync(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('hello');
      // The round is over: its state continues nothing.
      const replayed = (await ask({ requestState: state, inputResponses: {} })) as unknown as ToolOutcome;
      expect(replayed.isError).toBe(true);
      expect(textOf(replayed)).toMatch(/^This call waits for no answer any more: it already ended/);
    }, 90_000);

    it('over HTTP: a human who rejects stops the write; the developer is told the reason', async () => {
      configure({ mcpServe: { caller: { approvalAuthority: '*' } } });
      scriptDelegatedWrite();
      const { client } = mcpClient({ elicit: () => ({ decision: 'reject', reason: 'not now' }), revision: '2026-07-28' });
      await connect('HTTP', client);

      const result = (await client.callTool(
        { name: 'ask_coordinator', arguments: { message: 'Take notes' } },
        { timeout: 60_000 },
      )) as ToolOutcome;

      expect(result.isError, textOf(result)).toBeFalsy();
      expect(existsSync(join(workspace.dir, 'notes.txt'))).toBe(false);
      expect(workspace.toolResultSent('toolu_write')).toContain('not now');
    }, 90_000);

    it("over stdio: an agent that asks the user is answered by the client's human", async () => {
      useModel('coordinator', { provider: 'anthropic', model: 'claude-coord', baseURL: mock.url });
      mock.on(
        { model: 'claude-coord', userMessage: 'Paint it', hasToolResult: false },
        { toolCalls: [{ id: 'toolu_q', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which colour?' }) }] },
      );
      mock.on({ model: 'claude-coord', userMessage: 'Paint it', hasToolResult: true }, { content: 'Painted it blue.' });
      const { client, elicited } = mcpClient({ elicit: () => ({ answer: 'blue' }), revision: '2026-07-28' });
      await connect('stdio', client);

      const result = (await client.callTool(
        { name: 'ask_coordinator', arguments: { message: 'Paint it' } },
        { timeout: 60_000 },
      )) as ToolOutcome;

      expect(textOf(result)).toBe('Painted it blue.');
      expect(elicited).toEqual(['coordinator asks: Which colour?']);
      expect(workspace.toolResultSent('toolu_q')).toBe('blue');
    }, 90_000);

    it('a client without elicitation gets the paused result, and answer_approval resumes the turn to the reply', async () => {
      configure({ mcpServe: { caller: { approvalAuthority: '*' } } });
      scriptDelegatedWrite();
      const { client } = mcpClient({ revision: '2026-07-28' });
      await connect('HTTP', client);

      const paused = (await client.callTool(
        { name: 'ask_coordinator', arguments: { message: 'Take notes' } },
        { timeout: 60_000 },
      )) as ToolOutcome;
      expect(paused.structuredContent).toMatchObject({ status: 'paused', approvals: [{ requester: 'developer', approver: 'mcp' }] });
      const id = (paused.structuredContent!['approvals'] as Array<{ id: string }>)[0]!.id;

      const answered = (await client.callTool(
        { name: 'answer_approval', arguments: { approvals: [{ id, decision: 'approve' }] } },
        { timeout: 60_000 },
      )) as ToolOutcome;
      expect(textOf(answered)).toBe('The developer wrote notes.txt.');
    }, 90_000);

    for (const over of ['stdio', 'HTTP'] as const) {
      it(`over ${over}: a client that cancels mid-turn stops the turn, and the next ask in the conversation works`, async () => {
        const oracle = {
          id: 'oracle',
          type: 'mock',
          name: 'Oracle',
          description: 'Answers slowly.',
          responses: [{ trigger: '/^hold/', response: 'too late', delayMs: 60_000 }],
          fallback: 'no idea',
        };
        writeFileSync(join(workspace.dir, '.legion/collective/participants/oracle.json'), JSON.stringify(oracle, null, 2));
        useModel('coordinator', { provider: 'anthropic', model: 'claude-coord', baseURL: mock.url });
        mock.on({ model: 'claude-coord', userMessage: 'Status?' }, { content: 'All fine.' });
        mock.on(
          { model: 'claude-coord', userMessage: 'Ask the oracle', hasToolResult: false },
          { toolCalls: [{ id: 'toolu_slow', name: 'communicate', arguments: JSON.stringify({ to: 'oracle', message: 'hold on' }) }] },
        );
        const { client } = mcpClient({ revision: '2026-07-28' });
        await connect(over, client);
        const stop = new AbortController();

        const cancelled = client.callTool(
          { name: 'ask_coordinator', arguments: { message: 'Ask the oracle' } },
          {
            timeout: 60_000,
            signal: stop.signal,
            onprogress: (step) => step.message === 'coordinator asks oracle' && stop.abort('changed my mind'),
          },
        );
        await expect(cancelled).rejects.toThrow();

        // Within the oracle's 60 s: only a stopped turn frees the conversation for the next ask.
        const next = (await client.callTool(
          { name: 'ask_coordinator', arguments: { message: 'Status?' } },
          { timeout: 30_000 },
        )) as ToolOutcome;
        expect(textOf(next)).toBe('All fine.');
        const page = (await client.callTool({ name: 'read_conversation', arguments: { limit: 10 } }, { timeout: 30_000 })) as ToolOutcome;
        const texts = (page.structuredContent!['messages'] as Array<{ text: string }>).map((message) => message.text);
        expect(texts).toContainEqual(expect.stringContaining('[This turn was cancelled before it finished.'));
      }, 90_000);
    }
  });
});
