import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Role, TaskState, type Message, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { LEGION, runLegion } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// `legion a2a serve` as a real process, driven by the official A2A SDK's client (JSON-RPC over
// HTTP); the agents' models are aimock on 127.0.0.1 through the real Anthropic SDK, and, for the
// cancel, a raw HTTP server that holds the model's response open.

/** A `legion a2a serve` process, once it printed its URL and token. */
interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  token: string;
  stderr(): string;
  exited: Promise<number | null>;
}

function serveA2a(cwd: string, env: NodeJS.ProcessEnv): Promise<Served> {
  const child = spawn(process.execPath, [LEGION, 'a2a', 'serve'], { cwd, env });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = stderr.match(/ at (http:\/\/127\.0\.0\.1:\d+)\n/)?.[1];
      const token = stderr.match(/^Access token: (\S+)$/m)?.[1];
      if (url && token) resolve({ child, url, token, stderr: () => stderr, exited });
    });
    void exited.then((status) => reject(new Error(`legion a2a serve exited (${status}) before printing its URL: ${stderr}`)));
  });
}

/** An SDK client of the agent whose card is under `baseUrl`, sending `token` (none: no Authorization header). */
function clientOf(baseUrl: string, token: string | undefined): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }),
  );
  return factory.createFromUrl(baseUrl);
}

function userMessage(text: string, ids: { contextId?: string; taskId?: string } = {}): SendMessageRequest {
  const message: Message = {
    messageId: randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

function asTask(result: Message | Task): Task {
  if (!('status' in result)) throw new Error(`expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

const textOf = (message: Message | undefined): string =>
  (message?.parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
const answerOf = (task: Task): string =>
  task.artifacts
    .flatMap((artifact) => artifact.parts)
    .map((part) => textOf({ parts: [part] } as Message))
    .join('');

describe('legion a2a serve, through the official A2A client', () => {
  const workspace = useWorkspace('legion-a2a-serve-');
  const { mock, env, useModel } = workspace;
  const served: Served[] = [];
  let holder: Server | undefined;
  afterEach(async () => {
    for (const server of served.splice(0)) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    holder?.closeAllConnections();
    await new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve()));
    holder = undefined;
  });
  const processEnv = (): Record<string, string> => {
    const merged: Record<string, string> = {};
    for (const [key, value] of Object.entries({ ...process.env, ...env() })) if (value !== undefined) merged[key] = value;
    return merged;
  };
  const serve = async (): Promise<Served> => {
    const server = await serveA2a(workspace.dir, processEnv());
    served.push(server);
    return server;
  };
  const claude = (model: string, baseURL = mock.url) => ({ provider: 'anthropic', model, baseURL });

  it('publishes the card publicly, refuses a request without the token, and answers a message with the whole tree’s work; a follow-up in the context continues the conversation, and the task outlives a restart', async () => {
    useModel('coordinator', claude('claude-coord'));
    useModel('developer', claude('claude-dev'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Add a health check', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_del', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Write health()' }) }] },
    );
    mock.on({ model: 'claude-dev', userMessage: 'Write health()' }, { content: 'health() is written.' });
    mock.on(
      { model: 'claude-coord', userMessage: 'Add a health check', hasToolResult: true },
      { content: 'The developer wrote health().' },
    );
    mock.on({ model: 'claude-coord', userMessage: 'And a test?' }, { content: 'A test is next.' });
    const server = await serve();

    // The card needs no token (the SDK's resolver sends none): it names the agent, its skill, streaming and the bearer scheme.
    const anonymous = await clientOf(server.url, undefined);
    const card = await anonymous.getAgentCard();
    expect(card.name).toBe('Coordinator');
    expect(card.skills[0]!.description).toContain('Anything the user asks');
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.securitySchemes['bearer']?.scheme).toMatchObject({ $case: 'httpAuthSecurityScheme', value: { scheme: 'Bearer' } });
    expect(card.supportedInterfaces[0]!.url).toBe(`${server.url}/agents/coordinator`);
    await expect(anonymous.sendMessage(userMessage('Add a health check'))).rejects.toThrow(/This request has no access token/);
    const raw = await fetch(`${server.url}/agents/coordinator`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(raw.status).toBe(401);
    expect(JSON.stringify(await raw.json())).toContain(
      'send the header \\"Authorization: Bearer <token>\\" with the token legion a2a serve printed',
    );
    expect(mock.getRequests()).toHaveLength(0);

    const client = await clientOf(server.url, server.token);
    const task = asTask(await client.sendMessage(userMessage('Add a health check')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(task)).toBe('The developer wrote health().');
    // The delegation is in the task's history, as a status message.
    expect(task.history.map((message) => textOf(message))).toContain('coordinator asks developer');
    const legion = task.metadata?.['legion'] as { sessionId: string; conversationId: string };
    expect(legion.conversationId).toBe(`mcp__coordinator__${task.contextId}`);
    expect(task.metadata?.['usage']).toMatchObject({ calls: 3 });

    const followUp = asTask(await client.sendMessage(userMessage('And a test?', { contextId: task.contextId })));
    expect(followUp.id).not.toBe(task.id);
    expect(answerOf(followUp)).toBe('A test is next.');
    // The model was given the conversation so far: the same Legion conversation goes on.
    const lastRequest = JSON.stringify(mock.getRequests().at(-1)?.body);
    expect(lastRequest).toContain('Add a health check');
    expect(lastRequest).toContain('The developer wrote health().');
    const log = await runLegion(['log', '--session', legion.sessionId, legion.conversationId], {
      cwd: workspace.dir,
      env: processEnv(),
      timeoutMs: 30_000,
    });
    expect(log.stdout).toContain('And a test?');

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const again = await serve();
    const restored = await (await clientOf(again.url, again.token)).getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(restored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(restored)).toBe('The developer wrote health().');
  }, 120_000);

  it('streams a task: the task, the delegation as a status, the answer as an artifact, then completed', async () => {
    useModel('coordinator', claude('claude-coord'));
    useModel('developer', claude('claude-dev'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Review the plan', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_del', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Read the plan' }) }] },
    );
    mock.on({ model: 'claude-dev', userMessage: 'Read the plan' }, { content: 'The plan holds.' });
    mock.on({ model: 'claude-coord', userMessage: 'Review the plan', hasToolResult: true }, { content: 'The plan is sound.' });
    const server = await serve();
    const client = await clientOf(server.url, server.token);

    const events: StreamResponse['payload'][] = [];
    for await (const event of client.sendMessageStream(userMessage('Review the plan'))) events.push(event.payload);

    expect(events[0]?.$case).toBe('task');
    const statuses = events.flatMap((event) => (event?.$case === 'statusUpdate' ? [event.value] : []));
    expect(statuses.map((update) => textOf(update.status?.message))).toContain('coordinator asks developer');
    const artifacts = events.flatMap((event) => (event?.$case === 'artifactUpdate' ? [event.value] : []));
    expect(artifacts.at(-1)).toMatchObject({ lastChunk: true, append: false });
    expect(textOf({ parts: artifacts.at(-1)!.artifact!.parts } as Message)).toBe('The plan is sound.');
    expect(statuses.at(-1)?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const taskId = statuses.at(-1)!.taskId;
    const stored = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  }, 90_000);

  /**
   * The developer's model is a server that holds each call (its key allowed there by the global
   * config) until `release`, then passes it on to aimock; the coordinator hands "Take your time" to
   * the developer. `held` fills as calls arrive; `droppedOnce` settles when a held call is dropped.
   */
  const holdDeveloper = async (): Promise<{ held: IncomingMessage[]; droppedOnce: Promise<void>; release(): void }> => {
    const held: IncomingMessage[] = [];
    let dropped!: () => void;
    const droppedOnce = new Promise<void>((resolve) => (dropped = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    holder = createServer((request, response) => {
      held.push(request);
      response.on('close', () => {
        if (!response.writableFinished) dropped();
      });
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void released.then(async () => {
          const answer = await fetch(`${mock.url}${request.url}`, {
            method: request.method,
            headers: { 'content-type': 'application/json' },
            body: Buffer.concat(chunks),
          });
          response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          response.end(Buffer.from(await answer.arrayBuffer()));
        });
      });
    });
    await new Promise<void>((resolve) => holder!.listen(0, '127.0.0.1', () => resolve()));
    const heldUrl = `http://127.0.0.1:${(holder.address() as AddressInfo).port}`;
    useModel('coordinator', claude('claude-coord'));
    useModel('developer', claude('claude-dev', heldUrl));
    const globalConfig = join(workspace.dir, '.xdg/legion/config.json');
    mkdirSync(dirname(globalConfig), { recursive: true });
    writeFileSync(globalConfig, JSON.stringify({ providers: { anthropic: { keyOrigins: [heldUrl] } } }));
    mock.on(
      { model: 'claude-coord', userMessage: 'Take your time', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_del', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Think hard' }) }] },
    );
    mock.on({ model: 'claude-dev', userMessage: 'Think hard' }, { content: 'Thought it through.' });
    mock.on({ model: 'claude-coord', userMessage: 'Take your time', hasToolResult: true }, { content: 'Done, after some thought.' });
    return { held, droppedOnce, release };
  };

  it('a streaming client that goes away misses nothing: the task goes on to its end, and tasks/get has it', async () => {
    const { held, release } = await holdDeveloper();
    const server = await serve();
    const client = await clientOf(server.url, server.token);
    const away = new AbortController();
    const stream = client.sendMessageStream(userMessage('Take your time'), { signal: away.signal });
    const task = ((await stream.next()).value!.payload as { $case: 'task'; value: Task }).value;
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 30_000 });
    away.abort();
    await stream.next().catch(() => undefined);

    release();
    await vi.waitFor(
      async () => {
        const stored = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
        expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(answerOf(stored)).toBe('Done, after some thought.');
      },
      { timeout: 30_000, interval: 200 },
    );
  }, 90_000);

  it('cancels a task: the whole delegation tree stops (the delegate’s held model call is dropped) and the task is cancelled', async () => {
    const { held, droppedOnce } = await holdDeveloper();
    const server = await serve();
    const client = await clientOf(server.url, server.token);

    const stream = client.sendMessageStream(userMessage('Take your time'));
    const first = await stream.next();
    expect(first.value?.payload?.$case).toBe('task');
    const task = (first.value!.payload as { $case: 'task'; value: Task }).value;
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 30_000 });

    const cancelled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await droppedOnce;
    const rest: StreamResponse[] = [];
    for await (const event of { [Symbol.asyncIterator]: () => stream }) rest.push(event);
    const states = rest.flatMap((event) => (event.payload?.$case === 'statusUpdate' ? [event.payload.value.status?.state] : []));
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    const stored = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // A task that ended is not cancelled again.
    await expect(client.cancelTask({ tenant: '', id: task.id, metadata: undefined })).resolves.toMatchObject({
      status: { state: TaskState.TASK_STATE_CANCELED },
    });
  }, 90_000);

  it('an agent’s question to the user makes the task input-required with the question; the client’s next message answers it and the work goes on', async () => {
    useModel('coordinator', claude('claude-coord'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Plan the release', hasToolResult: false },
      {
        toolCalls: [
          { id: 'toolu_ask', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which day should it ship?' }) },
        ],
      },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Plan the release', hasToolResult: true }, { content: 'It ships on Friday.' });
    const server = await serve();
    const client = await clientOf(server.url, server.token);

    const asked = asTask(await client.sendMessage(userMessage('Plan the release')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(asked.status?.message)).toContain('coordinator asks: Which day should it ship?');
    // Asked as it happened, with the question's id (`legion answer` takes it in the workspace).
    expect(asked.history.map((message) => textOf(message))).toContainEqual(
      expect.stringMatching(/^coordinator asks user: "Which day should it ship\?" \(q_\w+\)$/),
    );

    const answered = asTask(await client.sendMessage(userMessage('Friday', { taskId: asked.id, contextId: asked.contextId })));
    expect(answered.id).toBe(asked.id);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(answered)).toBe('It ships on Friday.');
    expect(workspace.toolResultSent('toolu_ask')).toContain('Friday');
  }, 90_000);
  it('a task left working by a server that was killed is failed when the next one starts, saying what to do', async () => {
    const { held } = await holdDeveloper();
    const server = await serve();
    const client = await clientOf(server.url, server.token);
    const stream = client.sendMessageStream(userMessage('Take your time'));
    const task = ((await stream.next()).value!.payload as { $case: 'task'; value: Task }).value;
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 30_000 });
    server.child.kill('SIGKILL');
    await server.exited;
    await stream.return(undefined).catch(() => undefined);

    const again = await serve();
    const stored = await (await clientOf(again.url, again.token)).getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(stored.status?.message)).toMatch(/legion a2a serve ended while this task ran; .* send a new message in this context/);
  }, 90_000);

  /** The coordinator writes notes.txt, which needs approval, then says so. */
  const scriptWrite = (): void => {
    useModel('coordinator', claude('claude-coord'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Write notes', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_write', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'hello' }) }] },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Write notes', hasToolResult: true }, { content: 'notes.txt is written.' });
  };
  /** The decisions the workspace recorded, from the approvals logs of its sessions. */
  const decisions = (): Array<Record<string, unknown>> => {
    const sessions = join(workspace.dir, '.legion/sessions');
    return readdirSync(sessions).flatMap((session) => {
      const log = join(sessions, session, 'approvals.jsonl');
      if (!existsSync(log)) return [];
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((record) => record['kind'] === 'decision');
    });
  };

  it('an approval the client may decide makes the task input-required; its next message decides it (a reply that is no decision is asked again) and the work goes on', async () => {
    const config = join(workspace.dir, '.legion/config.json');
    writeFileSync(
      config,
      JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), mcpServe: { caller: { approvalAuthority: '*' } } }, null, 2),
    );
    scriptWrite();
    const server = await serve();
    const client = await clientOf(server.url, server.token);

    const paused = asTask(await client.sendMessage(userMessage('Write notes')));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(paused.status?.message)).toMatch(
      /coordinator wants to run file_write[\s\S]*Reply "approve" to allow it once, or "reject"/,
    );
    const ids = { taskId: paused.id, contextId: paused.contextId };

    const unclear = asTask(await client.sendMessage(userMessage('maybe later', ids)));
    expect(unclear.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(unclear.status?.message)).toMatch(/is not a decision: reply "approve"/);
    expect(existsSync(join(workspace.dir, 'notes.txt'))).toBe(false);

    const approved = asTask(await client.sendMessage(userMessage('approve', ids)));
    expect(approved.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(approved)).toBe('notes.txt is written.');
    expect(readFileSync(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('hello');
    expect(decisions()).toEqual([expect.objectContaining({ decision: 'approved', decidedBy: 'mcp', medium: 'a2a' })]);
  }, 90_000);

  it("an approval only the human decides is named with how to decide it; once decided in the workspace, the task's next message returns the reply; cancelling a waiting task rejects what it waited on", async () => {
    scriptWrite();
    const server = await serve();
    const client = await clientOf(server.url, server.token);

    const paused = asTask(await client.sendMessage(userMessage('Write notes')));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const text = textOf(paused.status?.message);
    const sessionId = (paused.metadata?.['legion'] as { sessionId: string }).sessionId;
    const requestId = text.match(/apr_\w+/)![0];
    expect(text).toContain(`user decides in the workspace: \`legion approve --session ${sessionId} ${requestId}\``);
    const ids = { taskId: paused.id, contextId: paused.contextId };
    // The client may not decide it: "approve" from it is no decision, the request still waits.
    const still = asTask(await client.sendMessage(userMessage('approve', ids)));
    expect(still.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(still.status?.message)).toContain(`Still waiting for the human to decide ${requestId}`);
    expect(decisions()).toEqual([]);

    const approve = await runLegion(['approve', '--session', sessionId, requestId], {
      cwd: workspace.dir,
      env: processEnv(),
      timeoutMs: 30_000,
    });
    expect(approve.status, approve.stderr).toBe(0);
    const done = asTask(await client.sendMessage(userMessage('how did it go?', ids)));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(done)).toBe('notes.txt is written.');

    rmSync(join(workspace.dir, 'notes.txt'));
    const again = asTask(await client.sendMessage(userMessage('Write notes')));
    expect(again.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const cancelled = await client.cancelTask({ tenant: '', id: again.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(decisions().at(-1)).toMatchObject({ decision: 'rejected', cancelled: true });
    expect(existsSync(join(workspace.dir, 'notes.txt'))).toBe(false);
  }, 90_000);
});
