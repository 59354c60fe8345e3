import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { runLegion } from '../legion-process.test-support.js';
import { join } from 'node:path';
import type { SessionNotification, SessionUpdate } from '@agentclientprotocol/sdk';
import { useWorkspace } from '../workspace.test-support.js';
import { agentText, initialize, startEditor, type AcpEditor } from './acp-client.test-support.js';

// `legion acp` as a real process, driven by the ACP SDK's own client side over its stdio, as an
// editor runs it; the agents' models are aimock on 127.0.0.1, through the real provider SDKs.

type Updates<Kind extends SessionUpdate['sessionUpdate']> = Array<Extract<SessionUpdate, { sessionUpdate: Kind }>>;

function updatesOf<Kind extends SessionUpdate['sessionUpdate']>(
  updates: readonly SessionNotification[],
  sessionId: string,
  kind: Kind,
): Updates<Kind> {
  return updates
    .filter((notification) => notification.sessionId === sessionId && notification.update.sessionUpdate === kind)
    .map((notification) => notification.update as Extract<SessionUpdate, { sessionUpdate: Kind }>);
}

describe('legion acp, through the ACP SDK client', () => {
  const workspace = useWorkspace('legion-acp-');
  const { mock, env, useModel } = workspace;
  const claude = (model: string) => ({ provider: 'anthropic', model, baseURL: mock.url });
  const gpt = (model: string) => ({ provider: 'openai', model, baseURL: `${mock.url}/v1` });
  const editors: AcpEditor[] = [];
  const processEnv = (): NodeJS.ProcessEnv => ({ ...process.env, ...env() });
  const open = (answer?: Parameters<typeof startEditor>[2]): AcpEditor => {
    const editor = startEditor(workspace.dir, processEnv(), answer);
    editors.push(editor);
    return editor;
  };
  afterEach(async () => {
    for (const editor of editors.splice(0)) await editor.close();
  });

  it("streams the entry agent's answer, shows a delegate's file write as a diff tool call, and asks the editor for the delegate's approval", async () => {
    useModel('coordinator', claude('claude-coord'));
    useModel('developer', gpt('gpt-dev'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Write the notes', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_del', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Write notes.txt' }) }] },
    );
    mock.on(
      { model: 'gpt-dev', userMessage: 'Write notes.txt', hasToolResult: false },
      { toolCalls: [{ id: 'call_write', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'hello\n' }) }] },
    );
    // The developer's answer streams slowly enough for the delegation's call to show it as it comes.
    mock.on(
      { model: 'gpt-dev', userMessage: 'Write notes.txt', hasToolResult: true },
      { content: 'notes.txt is written.' },
      { latency: 120, chunkSize: 3 },
    );
    mock.on(
      { model: 'claude-coord', userMessage: 'Write the notes', hasToolResult: true },
      { content: 'The developer wrote notes.txt for you.' },
      { chunkSize: 4 },
    );
    const editor = open(() => ({ outcome: { outcome: 'selected', optionId: 'once' } }));

    const initialized = await initialize(editor);
    expect(initialized.agentCapabilities).toMatchObject({ loadSession: true, sessionCapabilities: { list: {}, resume: {} } });
    expect(initialized.agentInfo?.name).toBe('legion');
    const { sessionId } = await editor.connection.agent.request('session/new', { cwd: workspace.dir, mcpServers: [] });
    const { stopReason } = await editor.connection.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Write the notes' }],
    });

    expect(stopReason).toBe('end_turn');
    expect(readFileSync(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('hello\n');
    // Streamed: the answer came in several chunks, which make the reply.
    const chunks = updatesOf(editor.updates, sessionId, 'agent_message_chunk');
    expect(chunks.length).toBeGreaterThan(1);
    expect(agentText(editor.updates, sessionId)).toBe('The developer wrote notes.txt for you.');

    // The delegation is a tool call titled with the delegate and what it was asked, completed with its answer.
    const calls = updatesOf(editor.updates, sessionId, 'tool_call');
    const delegation = calls.find((call) => call.toolCallId === 'toolu_del');
    expect(delegation).toMatchObject({ title: 'asks developer: Write notes.txt', status: 'in_progress' });
    const toolUpdates = updatesOf(editor.updates, sessionId, 'tool_call_update');
    const delegationUpdates = toolUpdates.filter((update) => update.toolCallId === 'toolu_del');
    const streamed = delegationUpdates
      .filter((update) => update.status === undefined && update.content !== undefined)
      .map((update) => (update.content?.[0] as { content: { text: string } }).content.text);
    expect(streamed.length).toBeGreaterThan(0);
    for (const text of streamed) expect('notes.txt is written.'.startsWith(text), text).toBe(true);
    expect(delegationUpdates.at(-1)?.status).toBe('completed');
    expect(toolUpdates.find((update) => update.toolCallId === 'toolu_del' && update.status === 'completed')?.content).toEqual([
      { type: 'content', content: { type: 'text', text: 'notes.txt is written.' } },
    ]);

    // The delegate's write: asked of the editor with the four choices, showing the diff it would make.
    expect(editor.permissions).toHaveLength(1);
    const permission = editor.permissions[0]!;
    expect(permission.toolCall.toolCallId).toBe('call_write');
    expect(permission.toolCall.content).toEqual([
      { type: 'diff', path: join(workspace.dir, 'notes.txt'), oldText: null, newText: 'hello\n' },
    ]);
    expect(permission.options.map((option) => [option.optionId, option.kind])).toEqual([
      ['once', 'allow_once'],
      ['session', 'allow_always'],
      ['always', 'allow_always'],
      ['reject', 'reject_once'],
    ]);
    // The write itself: announced pending as an edit by the developer at the file, then run and completed, keeping its diff.
    const write = calls.find((call) => call.toolCallId === 'call_write');
    expect(write).toMatchObject({ kind: 'edit', status: 'pending', locations: [{ path: join(workspace.dir, 'notes.txt') }] });
    expect(write?.title).toBe('developer: file_write notes.txt');
    const done = toolUpdates.find((update) => update.toolCallId === 'call_write' && update.status === 'completed');
    expect(done?.content).toEqual([{ type: 'diff', path: join(workspace.dir, 'notes.txt'), oldText: null, newText: 'hello\n' }]);

    // Usage of the whole tree (the coordinator's two model calls and the developer's two), as ACP's usage_update with Legion's token counts.
    const usage = updatesOf(editor.updates, sessionId, 'usage_update').at(-1);
    // Models on 127.0.0.1 are local, so free: a known price of 0.
    expect(usage?.cost).toEqual({ amount: 0, currency: 'USD' });
    // The entry agent's context: its last request's tokens against its window.
    expect(usage?.used).toBeGreaterThan(0);
    expect(usage?.size).toBeGreaterThan(usage?.used ?? 0);
    expect(usage?._meta).toMatchObject({ legion: { calls: 4 } });
    // The thread is titled as the session is, from its first message.
    expect(updatesOf(editor.updates, sessionId, 'session_info_update').at(-1)?.title).toBe('Write the notes');
    // Nothing but protocol went to standard output; the messages for people went to standard error.
    const lines = editor
      .stdout()
      .split('\n')
      .filter((line) => line.length > 0);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect((JSON.parse(line) as { jsonrpc?: unknown }).jsonrpc, line).toBe('2.0');
    expect(editor.stderr()).toContain('legion acp:');
  }, 120_000);

  it('a rejected approval does not run; a cancelled turn stops the tree and ends "cancelled"; the session is listed and loaded after a restart', async () => {
    useModel('coordinator', claude('claude-coord'));
    useModel('developer', gpt('gpt-dev'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Delete nothing', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_write', name: 'file_write', arguments: JSON.stringify({ path: 'kept.txt', content: 'no' }) }] },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Delete nothing', hasToolResult: true }, { content: 'Understood, I did not write it.' });
    // Held open: a long answer streamed slowly, cancelled after its first words.
    mock.on(
      { model: 'claude-coord', userMessage: 'Tell me a long story' },
      { content: 'Once upon a time there was a collective. '.repeat(50) },
      { latency: 200, chunkSize: 8 },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Are you there?' }, { content: 'Yes, still here.' });
    const editor = open(() => ({ outcome: { outcome: 'selected', optionId: 'reject' } }));
    await initialize(editor);
    const { sessionId } = await editor.connection.agent.request('session/new', { cwd: workspace.dir, mcpServers: [] });

    const rejected = await editor.connection.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Delete nothing' }],
    });
    expect(rejected.stopReason).toBe('end_turn');
    expect(existsSync(join(workspace.dir, 'kept.txt'))).toBe(false);
    expect(editor.permissions.map((request) => request.toolCall.toolCallId)).toEqual(['toolu_write']);
    expect(
      updatesOf(editor.updates, sessionId, 'tool_call_update')
        .filter((update) => update.toolCallId === 'toolu_write')
        .at(-1)?.status,
    ).toBe('failed');

    const story = editor.connection.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Tell me a long story' }],
    });
    await expect.poll(() => agentText(editor.updates, sessionId).includes('Once'), { timeout: 30_000 }).toBe(true);
    await editor.connection.agent.notify('session/cancel', { sessionId });
    expect((await story).stopReason).toBe('cancelled');
    const next = await editor.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Are you there?' }] });
    expect(next.stopReason).toBe('end_turn');
    expect(await editor.close()).toBe(0);

    // Another editor process: the session is listed, and loading it replays the thread.
    const again = open();
    await initialize(again);
    const { sessions } = await again.connection.agent.request('session/list', { cwd: workspace.dir });
    expect(sessions.find((session) => session.sessionId === sessionId)).toMatchObject({ cwd: workspace.dir, title: 'Delete nothing' });
    // An editor working in a folder of the workspace sees the workspace's sessions, under that folder.
    mkdirSync(join(workspace.dir, 'src'));
    const inFolder = await again.connection.agent.request('session/list', { cwd: join(workspace.dir, 'src') });
    expect(inFolder.sessions.find((session) => session.sessionId === sessionId)?.cwd).toBe(join(workspace.dir, 'src'));
    await again.connection.agent.request('session/load', { sessionId, cwd: workspace.dir, mcpServers: [] });
    const replayed = again.updates.filter((notification) => notification.sessionId === sessionId);
    const said = (kind: 'user_message_chunk' | 'agent_message_chunk'): string =>
      replayed
        .filter((notification) => notification.update.sessionUpdate === kind)
        .map((notification) => (notification.update as { content: { type: string; text?: string } }).content.text ?? '')
        .join('|');
    expect(said('user_message_chunk')).toBe('Delete nothing|Tell me a long story|Are you there?');
    expect(said('agent_message_chunk')).toContain('Understood, I did not write it.');
    expect(said('agent_message_chunk')).toContain('(The turn was cancelled.)');
    expect(said('agent_message_chunk')).toContain('Yes, still here.');
    expect(updatesOf(replayed, sessionId, 'tool_call').map((call) => call.toolCallId)).toEqual(['toolu_write']);
    // The loaded session takes prompts where it left off.
    mock.on({ model: 'claude-coord', userMessage: 'One more thing' }, { content: 'Sure.' });
    const more = await again.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'One more thing' }] });
    expect(more.stopReason).toBe('end_turn');
  }, 120_000);

  it("cancel while a delegate's permission request is open: the editor's request is withdrawn, the approval settled, and nothing of the turn runs later", async () => {
    useModel('coordinator', claude('claude-coord'));
    useModel('developer', gpt('gpt-dev'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Build the notes', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_del', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Write notes.txt' }) }] },
    );
    mock.on(
      { model: 'gpt-dev', userMessage: 'Write notes.txt', hasToolResult: false },
      { toolCalls: [{ id: 'call_write', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'late' }) }] },
    );
    let withdrawn = false;
    // The editor's user never clicks: the request stays open until the agent withdraws it, which the editor answers "cancelled".
    const editor = open(
      (_request, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            withdrawn = true;
            resolve({ outcome: { outcome: 'cancelled' } });
          }),
        ),
    );
    await initialize(editor);
    const { sessionId } = await editor.connection.agent.request('session/new', { cwd: workspace.dir, mcpServers: [] });
    const prompt = editor.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Build the notes' }] });
    await expect.poll(() => editor.permissions.length, { timeout: 30_000 }).toBe(1);
    const approvalId = (editor.permissions[0]!._meta as { legion: { approvalId: string } }).legion.approvalId;
    await editor.connection.agent.notify('session/cancel', { sessionId });

    expect((await prompt).stopReason).toBe('cancelled');
    expect(withdrawn).toBe(true);
    const legion = (args: string[]) => runLegion(args, { cwd: workspace.dir, env: processEnv(), timeoutMs: 60_000 });
    const all = await legion(['approvals', '--all', '--json']);
    const listed = (JSON.parse(all.stdout) as { approvals: Array<{ id: string; status: string; decisionReason?: string }> }).approvals;
    expect(listed.find((view) => view.id === approvalId)).toMatchObject({
      status: 'rejected',
      decisionReason: expect.stringContaining('cancelled'),
    });
    const approved = await legion(['approve', approvalId]);
    expect(approved.status).toBe(1);
    expect(existsSync(join(workspace.dir, 'notes.txt'))).toBe(false);
    expect(mock.getRequests().filter((entry) => (entry.body as { model?: string } | null)?.model === 'gpt-dev')).toHaveLength(1);
  }, 120_000);

  it("an agent's question to you ends the prompt with the question, and the next prompt answers it; its todos are the plan", async () => {
    useModel('coordinator', claude('claude-coord'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Plan the trip', hasToolResult: false },
      {
        toolCalls: [
          {
            id: 'toolu_todo',
            name: 'todo_write',
            arguments: JSON.stringify({
              items: [
                { id: '1', text: 'Choose the city', status: 'in_progress' },
                { id: '2', text: 'Book', status: 'pending' },
              ],
            }),
          },
          { id: 'toolu_ask', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which city?' }) },
        ],
      },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Plan the trip', hasToolResult: true }, { content: 'Paris it is.' });
    const editor = open();
    await initialize(editor);
    const { sessionId } = await editor.connection.agent.request('session/new', { cwd: workspace.dir, mcpServers: [] });

    const asked = await editor.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Plan the trip' }] });
    expect(asked.stopReason).toBe('end_turn');
    expect(agentText(editor.updates, sessionId)).toContain('coordinator asks you: Which city?');
    expect(updatesOf(editor.updates, sessionId, 'plan').at(-1)?.entries).toEqual([
      { content: 'Choose the city', priority: 'medium', status: 'in_progress' },
      { content: 'Book', priority: 'medium', status: 'pending' },
    ]);

    const answered = await editor.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Paris' }] });
    expect(answered.stopReason).toBe('end_turn');
    expect(agentText(editor.updates, sessionId)).toMatch(/Paris it is\.$/);
    expect(workspace.toolResultSent('toolu_ask')).toContain('Paris');
  }, 120_000);

  it('SIGTERM while a turn streams: the turn is cancelled and recorded so before the process exits', async () => {
    useModel('coordinator', claude('claude-coord'));
    mock.on(
      { model: 'claude-coord', userMessage: 'Tell me a long story' },
      { content: 'Once upon a time there was a collective. '.repeat(50) },
      { latency: 200, chunkSize: 8 },
    );
    const editor = open();
    await initialize(editor);
    const { sessionId } = await editor.connection.agent.request('session/new', { cwd: workspace.dir, mcpServers: [] });
    const story = editor.connection.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Tell me a long story' }],
    });
    story.catch(() => undefined);
    await expect.poll(() => agentText(editor.updates, sessionId).includes('Once'), { timeout: 30_000 }).toBe(true);
    editor.child.kill('SIGTERM');
    expect(await editor.exited, editor.stderr()).toBe(0);

    const again = open();
    await initialize(again);
    await again.connection.agent.request('session/load', { sessionId, cwd: workspace.dir, mcpServers: [] });
    // What the cancelled turn streamed was never an answer: the log keeps the message and how its turn ended.
    expect(agentText(again.updates, sessionId)).toBe('\n\n(The turn was cancelled.)');
  }, 120_000);

  it('refuses a cwd outside the workspace, and a failed turn fails the prompt instead of ending it as an answer', async () => {
    useModel('coordinator', claude('claude-missing'));
    const editor = open();
    await initialize(editor);
    await expect(editor.connection.agent.request('session/new', { cwd: '/', mcpServers: [] })).rejects.toThrow(
      /is not inside the Legion workspace/,
    );
    const { sessionId } = await editor.connection.agent.request('session/new', {
      cwd: workspace.dir,
      mcpServers: [{ name: 'editor-tools', command: '/bin/true', args: [], env: [] }],
    });
    await expect.poll(() => editor.stderr()).toContain(`the editor's MCP servers (editor-tools) are not used`);
    // No fixture matches: the provider answers 404, and the turn fails.
    await expect(
      editor.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Anything' }] }),
    ).rejects.toThrow(/coordinator could not answer/);
    // The editor ends it as it ends any agent process: it stops at once, cleanly.
    editor.child.kill('SIGTERM');
    expect(await editor.exited).toBe(0);
  }, 120_000);
});
