import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { StreamableHTTPClientTransport, type Client } from '@modelcontextprotocol/client';
import { runLegion } from '../legion-process.test-support.js';
import {
  connectHttp,
  connectStdio,
  mcpClient,
  outerWorkspace,
  serveMcpHttp,
  textOf,
  useMcpProcesses,
  type HttpServed,
  type ToolOutcome,
} from '../mcp-serve.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// `legion mcp serve` as a real process, driven by the MCP SDK's own Client over stdio and
// Streamable HTTP; the agents' models are aimock on 127.0.0.1, through the real provider SDKs.

describe('legion mcp serve, through real MCP clients', () => {
  const workspace = useWorkspace('legion-mcp-serve-');
  const { mock, env, useModel } = workspace;
  const { clients, servers, processEnv } = useMcpProcesses(env);
  const claude = (model: string) => ({ provider: 'anthropic', model, baseURL: mock.url });
  const gpt = (model: string) => ({ provider: 'openai', model, baseURL: `${mock.url}/v1` });
  const configure = (fields: Record<string, unknown>): void => {
    const file = join(workspace.dir, '.legion/config.json');
    const current = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
    writeFileSync(file, JSON.stringify({ ...current, ...fields }, null, 2));
  };
  const addOracle = (): void => {
    const oracle = {
      id: 'oracle',
      type: 'mock',
      name: 'Oracle',
      description: 'Answers slowly.',
      responses: [{ trigger: '/^hold/', response: 'too late', delayMs: 60_000 }],
      fallback: 'no idea',
    };
    writeFileSync(join(workspace.dir, '.legion/collective/participants/oracle.json'), JSON.stringify(oracle, null, 2));
  };
  const http = async (args: string[] = []): Promise<HttpServed> => {
    const served = await serveMcpHttp(workspace.dir, processEnv(), args);
    servers.push(served);
    return served;
  };
  const httpClient = async (served: HttpServed, options: Parameters<typeof mcpClient>[0] = {}) => {
    const made = mcpClient(options);
    clients.push(made.client);
    await connectHttp(made.client, served);
    return made;
  };
  const call = async (
    client: Client,
    name: string,
    args: Record<string, unknown>,
    options: Parameters<Client['callTool']>[1] = {},
  ): Promise<ToolOutcome> => (await client.callTool({ name, arguments: args }, { timeout: 60_000, ...options })) as ToolOutcome;

  /** The coordinator hands `task` to the developer, who writes notes.txt (which needs approval), then both reply. */
  const scriptDelegatedWrite = (task: string): void => {
    useModel('coordinator', claude('claude-coord'));
    useModel('developer', gpt('gpt-dev'));
    mock.on(
      { model: 'claude-coord', userMessage: task, hasToolResult: false },
      { toolCalls: [{ id: 'toolu_del', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Write notes.txt' }) }] },
    );
    mock.on(
      { model: 'gpt-dev', userMessage: 'Write notes.txt', hasToolResult: false },
      { toolCalls: [{ id: 'call_write', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'hello' }) }] },
    );
    mock.on({ model: 'gpt-dev', userMessage: 'Write notes.txt', hasToolResult: true }, { content: 'notes.txt is written.' });
    mock.on({ model: 'claude-coord', userMessage: task, hasToolResult: true }, { content: 'The developer wrote notes.txt.' });
  };

  it("over stdio: lists the tools, asks the entry agent, which delegates; the reply carries ids and the whole tree's usage; the conversation is in legion log", async () => {
    useModel('coordinator', claude('claude-coord'));
    useModel('developer', gpt('gpt-dev'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Add a health check', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_1', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Write health()' }) }] },
    );
    mock.on({ model: 'gpt-dev', userMessage: 'Write health()' }, { content: 'health() is written.' });
    mock.on(
      { model: 'claude-coord', userMessage: 'Add a health check', hasToolResult: true },
      { content: 'The developer wrote health().' },
    );
    const { client } = mcpClient();
    clients.push(client);
    await connectStdio(client, workspace.dir, processEnv());

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'ask_coordinator',
      'list_participants',
      'list_sessions',
      'read_conversation',
      'list_approvals',
      'answer_approval',
    ]);
    expect(tools[0]!.description).toContain("Entry agent: takes the user's requests");
    expect(tools[0]!.description).toContain('Use for: Anything the user asks');

    const result = await call(client, 'ask_coordinator', { message: 'Add a health check' });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('The developer wrote health().');
    const structured = result.structuredContent!;
    expect(structured).toMatchObject({
      status: 'success',
      reply: 'The developer wrote health().',
      conversationId: 'mcp__coordinator',
      usage: { calls: 3 },
    });
    const sessionId = structured['sessionId'] as string;

    const log = await runLegion(['log', '--session', sessionId, 'mcp__coordinator'], {
      cwd: workspace.dir,
      env: processEnv(),
      timeoutMs: 30_000,
    });
    expect(log.status, log.stderr).toBe(0);
    expect(log.stdout).toContain('Add a health check');
    expect(log.stdout).toContain('The developer wrote health().');

    const bad = await call(client, 'ask_coordinator', { message: 42 });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/message is required, as text/);
    const badPage = await call(client, 'read_conversation', { limit: 1000 });
    expect(badPage.isError).toBe(true);
    expect(textOf(badPage)).toMatch(/limit is at most 100: page with offset/);
    const noSession = await call(client, 'ask_coordinator', { message: 'hi', session: 'nope' });
    expect(noSession.isError).toBe(true);
    expect(textOf(noSession)).toMatch(/list_sessions/);

    const page = await call(client, 'read_conversation', { session: sessionId, limit: 1 });
    expect(page.structuredContent).toMatchObject({
      conversationId: 'mcp__coordinator',
      messages: [{ author: 'coordinator', text: 'The developer wrote health().' }],
      nextOffset: 1,
    });
  }, 90_000);

  it('offers the agents mcpServe.expose names, and refuses to start on one that is not an agent, naming the fix', async () => {
    configure({ mcpServe: { expose: ['coordinator', 'reviewer'] } });
    const { client } = mcpClient();
    clients.push(client);
    await connectStdio(client, workspace.dir, processEnv());
    const { tools } = await client.listTools();
    expect(tools.filter((tool) => tool.name.startsWith('ask_')).map((tool) => tool.name)).toEqual(['ask_coordinator', 'ask_reviewer']);
    expect(tools.find((tool) => tool.name === 'ask_reviewer')?.description).toContain('Reviews code and plans for bugs');

    configure({ mcpServe: { expose: ['nobody'] } });
    const refused = await runLegion(['mcp', 'serve'], { cwd: workspace.dir, env: processEnv(), timeoutMs: 30_000 });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /mcpServe\.expose: "nobody" is not an active agent of the collective\. Fix: list agents from coordinator, developer, reviewer, or use "all"/,
    );
  }, 90_000);

  it('over HTTP: an approval the MCP caller may give is asked through elicitation, with progress on the way', async () => {
    configure({ mcpServe: { caller: { approvalAuthority: '*' } } });
    scriptDelegatedWrite('Take notes');
    const served = await http();
    const { client, elicited } = await httpClient(served, { elicit: () => ({ decision: 'approve' }) });
    const progress: string[] = [];

    const result = await call(
      client,
      'ask_coordinator',
      { message: 'Take notes' },
      { onprogress: (step) => progress.push(step.message ?? '') },
    );

    expect(textOf(result)).toBe('The developer wrote notes.txt.');
    expect(readFileSync(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('hello');
    expect(elicited).toHaveLength(1);
    expect(elicited[0]).toMatch(/^developer wants to run file_write/);
    expect(progress).toContain('coordinator asks developer');
    expect(progress.some((line) => line.startsWith('developer is working'))).toBe(true);
    expect(result.structuredContent).toMatchObject({ usage: { calls: 4 } });
  }, 90_000);

  it('over HTTP: without elicitation the turn pauses, list_approvals shows it, and answer_approval resumes it to the reply', async () => {
    configure({ mcpServe: { caller: { approvalAuthority: '*' } } });
    scriptDelegatedWrite('Take notes');
    const served = await http();
    const { client } = await httpClient(served);

    const paused = await call(client, 'ask_coordinator', { message: 'Take notes' });
    expect(paused.isError).toBeFalsy();
    expect(paused.structuredContent).toMatchObject({
      status: 'paused',
      conversationId: 'mcp__coordinator',
      approvals: [{ requester: 'developer', approver: 'mcp', tool: 'file_write' }],
    });
    const approvals = paused.structuredContent!['approvals'] as Array<{ id: string }>;
    const id = approvals[0]!.id;
    expect(textOf(paused)).toContain(`call answer_approval with`);
    expect(existsSync(join(workspace.dir, 'notes.txt'))).toBe(false);

    const listed = await call(client, 'list_approvals', {});
    expect(listed.structuredContent).toMatchObject({ approvals: [{ id, youDecide: true }] });
    const wrong = await call(client, 'answer_approval', { approvals: [{ id: 'not-an-id', decision: 'approve' }] });
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong)).toMatch(/id must be an approval request id/);

    const answered = await call(client, 'answer_approval', { approvals: [{ id, decision: 'approve' }] });
    expect(textOf(answered)).toBe('The developer wrote notes.txt.');
    expect(answered.structuredContent).toMatchObject({ status: 'success', conversationId: 'mcp__coordinator' });
    expect(readFileSync(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('hello');
  }, 90_000);

  it('an approval the MCP caller may not give (the default) goes to the human: answer_approval is refused, legion approve resumes it', async () => {
    scriptDelegatedWrite('Take notes');
    const served = await http();
    const { client, elicited } = await httpClient(served, { elicit: () => ({ decision: 'approve' }) });

    const paused = await call(client, 'ask_coordinator', { message: 'Take notes' });
    expect(paused.structuredContent).toMatchObject({ status: 'paused', approvals: [{ approver: 'user', tool: 'file_write' }] });
    expect(elicited).toEqual([]);
    const sessionId = paused.structuredContent!['sessionId'] as string;
    const id = (paused.structuredContent!['approvals'] as Array<{ id: string }>)[0]!.id;
    expect(textOf(paused)).toContain(`legion approve --session ${sessionId} ${id}`);

    const refused = await call(client, 'answer_approval', { approvals: [{ id, decision: 'approve' }] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/mcp has no authority to approve developer's file_write/);
    expect(existsSync(join(workspace.dir, 'notes.txt'))).toBe(false);

    const approved = await runLegion(['approve', '--session', sessionId, id], { cwd: workspace.dir, env: processEnv(), timeoutMs: 45_000 });
    expect(approved.status, approved.stderr).toBe(0);
    expect(readFileSync(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('hello');
    const page = await call(client, 'read_conversation', { session: sessionId, limit: 1 });
    expect(page.structuredContent).toMatchObject({ messages: [{ author: 'coordinator', text: 'The developer wrote notes.txt.' }] });
  }, 90_000);

  it('an agent that asks the user during an MCP call is answered through elicitation', async () => {
    useModel('coordinator', claude('claude-coord'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Paint it', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_q', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which colour?' }) }] },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Paint it', hasToolResult: true }, { content: 'Painted it blue.' });
    const served = await http();
    const { client, elicited } = await httpClient(served, { elicit: () => ({ answer: 'blue' }) });

    const result = await call(client, 'ask_coordinator', { message: 'Paint it' });

    expect(textOf(result)).toBe('Painted it blue.');
    expect(elicited).toEqual(['coordinator asks: Which colour?']);
    expect(workspace.toolResultSent('toolu_q')).toBe('blue');
  }, 90_000);

  it('a question the client cannot ask (no elicitation) waits for the human, who answers it from another process', async () => {
    useModel('coordinator', claude('claude-coord'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Paint it', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_q', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which colour?' }) }] },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Paint it', hasToolResult: true }, { content: 'Painted it as asked.' });
    const served = await http();
    const { client } = await httpClient(served);
    let answered: Promise<{ status: number | null; stderr: string }> | undefined;

    const result = await call(
      client,
      'ask_coordinator',
      { message: 'Paint it' },
      {
        onprogress: (step) => {
          const id = step.message?.match(/legion answer (q_\w+)/)?.[1];
          if (id && !answered) answered = runLegion(['answer', id, 'green'], { cwd: workspace.dir, env: processEnv(), timeoutMs: 30_000 });
        },
      },
    );

    expect(textOf(result)).toBe('Painted it as asked.');
    expect((await answered)?.status).toBe(0);
    expect(workspace.toolResultSent('toolu_q')).toBe('green');
  }, 90_000);

  it('a question for a user no MCP client answers for pauses the ask, naming it; legion answer resumes it to the reply', async () => {
    writeFileSync(
      // Named after "user": the first user stays the human the MCP caller stands in for.
      join(workspace.dir, '.legion/collective/participants/watch.json'),
      JSON.stringify(
        { version: 1, id: 'watch', name: 'Watch', description: 'The on-call engineer.', status: 'active', type: 'user', medium: 'repl' },
        null,
        2,
      ),
    );
    useModel('coordinator', claude('claude-coord'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Deploy it', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_watch', name: 'communicate', arguments: JSON.stringify({ to: 'watch', message: 'May I deploy now?' }) }] },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Deploy it', hasToolResult: true }, { content: 'Deployed, as the watch allowed.' });
    const served = await http();
    const { client, elicited } = await httpClient(served, { elicit: () => ({ answer: 'not mine to give' }) });

    const paused = await call(client, 'ask_coordinator', { message: 'Deploy it' });

    // Not told "unavailable" and left to assume: the turn waits for the watch, durably.
    expect(paused.structuredContent).toMatchObject({
      status: 'paused',
      approvals: [],
      questions: [{ from: 'coordinator', user: 'watch', text: 'May I deploy now?' }],
    });
    expect(elicited).toEqual([]);
    expect(workspace.toolResultSent('toolu_watch')).toBeUndefined();
    const sessionId = paused.structuredContent!['sessionId'] as string;
    const id = (paused.structuredContent!['questions'] as Array<{ id: string }>)[0]!.id;
    expect(textOf(paused)).toContain(`legion answer --session ${sessionId} ${id} "…"`);

    const answered = await runLegion(['answer', '--session', sessionId, id, 'Yes, deploy'], {
      cwd: workspace.dir,
      env: processEnv(),
      timeoutMs: 45_000,
    });
    expect(answered.status, answered.stderr).toBe(0);
    expect(answered.stdout).toBe('Deployed, as the watch allowed.\n');
    expect(workspace.toolResultSent('toolu_watch')).toBe('Yes, deploy');
  }, 90_000);

  it('a client that cancels mid-turn stops the turn and leaves the conversation whole: the next ask in it works', async () => {
    addOracle();
    useModel('coordinator', claude('claude-coord'));
    mock.on({ model: 'claude-coord', userMessage: 'Status?' }, { content: 'All fine.' });
    mock.on(
      { model: 'claude-coord', userMessage: 'Ask the oracle', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_slow', name: 'communicate', arguments: JSON.stringify({ to: 'oracle', message: 'hold on' }) }] },
    );
    const served = await http();
    const { client } = await httpClient(served);
    const stop = new AbortController();

    const cancelled = call(
      client,
      'ask_coordinator',
      { message: 'Ask the oracle' },
      { signal: stop.signal, onprogress: (step) => step.message === 'coordinator asks oracle' && stop.abort('changed my mind') },
    );
    await expect(cancelled).rejects.toThrow();

    const next = await call(client, 'ask_coordinator', { message: 'Status?' });
    expect(textOf(next)).toBe('All fine.');
    const page = await call(client, 'read_conversation', { limit: 10 });
    const texts = (page.structuredContent!['messages'] as Array<{ text: string }>).map((message) => message.text);
    // The communicate call has its result (the cancellation) and the turn its ending, so the conversation goes on with a turn of its own.
    expect(texts).toEqual([
      'Ask the oracle',
      expect.stringContaining('(calls communicate'),
      expect.stringMatching(/^\((error|result): /),
      expect.stringContaining('[This turn was cancelled before it finished.'),
      'Status?',
      'All fine.',
    ]);
  }, 90_000);

  it("a client that cancels its ask queued behind another client's turn in the same conversation cancels only its own: the other turn goes on, with its progress and usage", async () => {
    const oracle = {
      id: 'oracle',
      type: 'mock',
      name: 'Oracle',
      description: 'Answers after a while.',
      responses: [{ trigger: '/^ponder/', response: 'Forty-two.', delayMs: 1500 }],
      fallback: 'no idea',
    };
    writeFileSync(join(workspace.dir, '.legion/collective/participants/oracle.json'), JSON.stringify(oracle, null, 2));
    useModel('coordinator', claude('claude-coord'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Ask the oracle', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_ponder', name: 'communicate', arguments: JSON.stringify({ to: 'oracle', message: 'ponder this' }) }] },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Ask the oracle', hasToolResult: true }, { content: 'The oracle says Forty-two.' });
    mock.on({ model: 'claude-coord', userMessage: 'Status?' }, { content: 'All fine.' });
    const served = await http();
    const [first, second] = await Promise.all([httpClient(served), httpClient(served)]);
    let pondering!: () => void;
    const oracleWorks = new Promise<void>((resolve) => (pondering = resolve));
    const firstSteps: string[] = [];

    const asked = call(
      first.client,
      'ask_coordinator',
      { message: 'Ask the oracle', conversation: 'shared' },
      {
        onprogress: (step) => {
          firstSteps.push(step.message ?? '');
          if (step.message === 'coordinator asks oracle') pondering();
        },
      },
    );
    await oracleWorks;
    const stop = new AbortController();
    const queued = call(
      second.client,
      'ask_coordinator',
      { message: 'Second question', conversation: 'shared' },
      { signal: stop.signal, onprogress: () => stop.abort('not needed after all') },
    );
    await expect(queued).rejects.toThrow();

    const result = await asked;
    expect(result.structuredContent).toMatchObject({
      status: 'success',
      reply: 'The oracle says Forty-two.',
      conversationId: 'mcp__coordinator__shared',
    });
    // Both of the coordinator's model calls are counted in the first client's result, none lost to the second.
    expect((result.structuredContent!['usage'] as { calls: number }).calls).toBe(2);
    const next = await call(second.client, 'ask_coordinator', { message: 'Status?', conversation: 'shared' });
    expect(textOf(next)).toBe('All fine.');
    const page = await call(second.client, 'read_conversation', { conversation: 'shared', limit: 10 });
    const texts = (page.structuredContent!['messages'] as Array<{ text: string }>).map((message) => message.text);
    // The cancelled ask never reached the conversation: it was still waiting for its turn.
    expect(texts).toEqual([
      'Ask the oracle',
      expect.stringContaining('(calls communicate'),
      expect.stringMatching(/^\(result: Forty-two/),
      'The oracle says Forty-two.',
      'Status?',
      'All fine.',
    ]);
  }, 90_000);

  it('two clients at once, on different named conversations, each get their own reply', async () => {
    useModel('coordinator', claude('claude-coord'));
    mock.on({ model: 'claude-coord', userMessage: 'alpha' }, { content: 'Reply to alpha.' });
    mock.on({ model: 'claude-coord', userMessage: 'beta' }, { content: 'Reply to beta.' });
    const served = await http();
    const [first, second] = await Promise.all([httpClient(served), httpClient(served)]);

    const [a, b] = await Promise.all([
      call(first.client, 'ask_coordinator', { message: 'alpha', conversation: 'a' }),
      call(second.client, 'ask_coordinator', { message: 'beta', conversation: 'b' }),
    ]);

    expect(a.structuredContent).toMatchObject({ status: 'success', reply: 'Reply to alpha.', conversationId: 'mcp__coordinator__a' });
    expect(b.structuredContent).toMatchObject({ status: 'success', reply: 'Reply to beta.', conversationId: 'mcp__coordinator__b' });
  }, 90_000);

  it('another Legion workspace with this server in its mcpServers delegates to it end to end', async () => {
    useModel('coordinator', claude('claude-inner'));
    mock.on({ model: 'claude-inner', userMessage: 'Inner question' }, { content: 'Inner answer.' });
    const outer = await outerWorkspace(workspace.dir, claude('claude-outer'), processEnv());
    try {
      mock.on(
        { model: 'claude-outer', userMessage: 'Outer question', hasToolResult: false },
        { toolCalls: [{ id: 'toolu_mcp', name: 'mcp__team__ask_coordinator', arguments: JSON.stringify({ message: 'Inner question' }) }] },
      );
      mock.on(
        { model: 'claude-outer', userMessage: 'Outer question', hasToolResult: true },
        { content: 'The other team says: Inner answer.' },
      );

      const run = await runLegion(['run', '--approve', 'auto', 'Outer question'], { cwd: outer, env: processEnv(), timeoutMs: 60_000 });

      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toBe('The other team says: Inner answer.\n');
      expect(workspace.toolResultSent('toolu_mcp')).toContain('Inner answer.');
      const log = await runLegion(['log', 'mcp__coordinator'], { cwd: workspace.dir, env: processEnv(), timeoutMs: 30_000 });
      expect(log.stdout).toContain('Inner answer.');
    } finally {
      rmSync(outer, { recursive: true, force: true });
    }
  }, 90_000);

  /** Resolves once the server's standard error matches (it writes a line when something happens). */
  const logged = (served: HttpServed, pattern: RegExp): Promise<string> =>
    new Promise((resolve) => {
      const check = (): boolean => {
        const found = served.stderr().match(pattern);
        if (found) resolve(found[0]);
        return found !== null;
      };
      if (check()) return;
      const onData = (): void => void (check() && served.child.stderr.off('data', onData));
      served.child.stderr.on('data', onData);
    });

  it('over HTTP: a session whose client left without DELETE is closed once idle; a request in it gets 404 and the client initializes anew', async () => {
    configure({ mcpServe: { sessionIdleSeconds: 1 } });
    const served = await http();
    const { client } = await httpClient(served);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const transport = client.transport as StreamableHTTPClientTransport;
    const id = transport.sessionId!;
    // The client goes away without ending its session (close sends no DELETE).
    await client.close();

    await logged(served, new RegExp(`closed MCP session ${id}, idle for 1 s`));

    // The SDK's transport resumed on the old session id, as a client that slept would.
    const stale = new StreamableHTTPClientTransport(served.url, {
      sessionId: id,
      requestInit: { headers: { authorization: `Bearer ${served.token}` } },
    });
    await stale.start();
    const refused = await stale.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }).then(
      () => undefined,
      (error: unknown) => error as Error & { data?: { status?: number } },
    );
    await stale.close();
    expect(refused?.message).toMatch(/No MCP session .* expired after being idle.*initialize a new one/);
    expect(refused?.data?.status).toBe(404);
    const { client: fresh } = await httpClient(served);
    expect((await fresh.listTools()).tools.length).toBeGreaterThan(0);
  }, 60_000);

  it('over HTTP: a session whose client is still there (a turn running, its event stream open) is not idle, however long the turn takes', async () => {
    configure({ mcpServe: { sessionIdleSeconds: 1 } });
    addOracle();
    useModel('coordinator', claude('claude-coord'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Ask the oracle', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_slow', name: 'communicate', arguments: JSON.stringify({ to: 'oracle', message: 'hold on' }) }] },
    );
    const served = await http();
    const { client } = await httpClient(served);
    const busyId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const stop = new AbortController();
    let asking!: () => void;
    const oracleAsked = new Promise<void>((resolve) => (asking = resolve));
    const asked = call(
      client,
      'ask_coordinator',
      { message: 'Ask the oracle' },
      { signal: stop.signal, onprogress: (step) => step.message === 'coordinator asks oracle' && asking() },
    );
    await oracleAsked;
    // A session opened after the busy one and left idle expires: the busy one was idle-free for longer.
    const { client: idle } = await httpClient(served);
    const idleId = (idle.transport as StreamableHTTPClientTransport).sessionId!;
    await idle.close();

    await logged(served, new RegExp(`closed MCP session ${idleId}`));

    expect(served.stderr()).not.toContain(busyId);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    stop.abort('done');
    await expect(asked).rejects.toThrow();
  }, 60_000);

  it('over HTTP: past mcpServe.maxSessions a new client is refused with an error naming the fix; a session ended with DELETE frees its place', async () => {
    configure({ mcpServe: { maxSessions: 1 } });
    const served = await http();
    const { client: first } = await httpClient(served);
    const second = mcpClient();
    clients.push(second.client);

    await expect(connectHttp(second.client, served)).rejects.toThrow(
      /1 sessions open, its limit \(mcpServe\.maxSessions\).*raise mcpServe\.maxSessions/,
    );

    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    const third = mcpClient();
    clients.push(third.client);
    await connectHttp(third.client, served);
    expect((await third.client.listTools()).tools.length).toBeGreaterThan(0);
  }, 60_000);

  it('refuses requests without the token, from a web page Origin, or to another Host, with JSON that names the fix', async () => {
    const served = await http(['--token', 'a-token-of-some-length']);
    expect(served.token).toBe('a-token-of-some-length');
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const post = (headers: Record<string, string>): Promise<{ status: number; body: { error: { message: string } }; type: string }> =>
      new Promise((resolve, reject) => {
        const outgoing = request(
          {
            host: served.url.hostname,
            port: served.url.port,
            path: '/mcp',
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          },
          (incoming) => {
            let text = '';
            incoming.setEncoding('utf8');
            incoming.on('data', (chunk: string) => (text += chunk));
            const type = String(incoming.headers['content-type'] ?? '');
            incoming.on('end', () =>
              resolve({
                status: incoming.statusCode ?? 0,
                type,
                body: (type.startsWith('application/json') ? JSON.parse(text) : { error: { message: text } }) as {
                  error: { message: string };
                },
              }),
            );
          },
        );
        outgoing.on('error', reject);
        outgoing.end(initialize);
      });

    const noToken = await post({});
    expect(noToken.status).toBe(401);
    expect(noToken.type).toBe('application/json');
    expect(noToken.body.error.message).toMatch(/Authorization: Bearer <token>/);
    expect((await post({ authorization: 'Bearer wrong-token-of-some-length' })).status).toBe(401);
    const fromPage = await post({ authorization: `Bearer ${served.token}`, origin: 'http://evil.example' });
    expect(fromPage.status).toBe(403);
    expect(fromPage.body.error.message).toMatch(/a web page may not call this MCP server/);
    const rebound = await post({ authorization: `Bearer ${served.token}`, host: `evil.example:${served.url.port}` });
    expect(rebound.status).toBe(421);
    expect((await post({ authorization: `Bearer ${served.token}` })).status).toBe(200);
  }, 60_000);
});
