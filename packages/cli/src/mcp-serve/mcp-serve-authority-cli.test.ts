import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { runLegion } from '../legion-process.test-support.js';
import { connectHttp, mcpClient, serveMcpHttp, textOf, useMcpProcesses, type ToolOutcome } from '../mcp-serve.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// Who may decide through `legion mcp serve`: the MCP client is a user that stands in for the human,
// and decides only requests of the turns its own ask_<agent> calls started, whatever its approval
// authority covers. The human's `legion run` in another session is the human's: the client neither
// sees its pending commands nor decides them. Real processes, the MCP SDK's own Client, aimock models.

describe('legion mcp serve decides only within its own chains', () => {
  const workspace = useWorkspace('legion-mcp-authority-');
  const { mock, env, useModel } = workspace;
  const { clients, servers, processEnv } = useMcpProcesses(env);
  const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<ToolOutcome> =>
    (await client.callTool({ name, arguments: args }, { timeout: 60_000 })) as ToolOutcome;

  it("the human's paused legion run is neither listed to nor decided by an MCP client whose authority covers file_*; its own ask's approval still is", async () => {
    const file = join(workspace.dir, '.legion/config.json');
    writeFileSync(
      file,
      JSON.stringify(
        {
          ...(JSON.parse(readFileSync(file, 'utf8')) as object),
          mcpServe: { caller: { approvalAuthority: [{ requester: '*', tools: ['file_*'] }] } },
        },
        null,
        2,
      ),
    );
    useModel('coordinator', { provider: 'anthropic', model: 'claude-coord', baseURL: mock.url });
    useModel('developer', { provider: 'openai', model: 'gpt-dev', baseURL: `${mock.url}/v1` });
    // The human's run: the coordinator writes a file of the human's (its approval goes to the human).
    mock.on(
      { model: 'claude-coord', userMessage: 'Write the plan', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_plan', name: 'file_write', arguments: JSON.stringify({ path: 'plan.txt', content: 'the human plan' }) }] },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Write the plan', hasToolResult: true }, { content: 'plan.txt is written.' });
    // The MCP client's own ask: the coordinator delegates, the developer writes notes.txt (its approval goes to the client).
    mock.on(
      { model: 'claude-coord', userMessage: 'Take notes', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_del', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Write notes.txt' }) }] },
    );
    mock.on(
      { model: 'gpt-dev', userMessage: 'Write notes.txt', hasToolResult: false },
      { toolCalls: [{ id: 'call_write', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'hello' }) }] },
    );
    mock.on({ model: 'gpt-dev', userMessage: 'Write notes.txt', hasToolResult: true }, { content: 'notes.txt is written.' });
    mock.on({ model: 'claude-coord', userMessage: 'Take notes', hasToolResult: true }, { content: 'The developer wrote notes.txt.' });

    const served = await serveMcpHttp(workspace.dir, processEnv());
    servers.push(served);
    const { client } = mcpClient();
    clients.push(client);
    await connectHttp(client, served);

    const paused = await call(client, 'ask_coordinator', { message: 'Take notes' });
    expect(paused.structuredContent).toMatchObject({
      status: 'paused',
      approvals: [{ requester: 'developer', approver: 'mcp', tool: 'file_write' }],
    });
    const ownSession = paused.structuredContent!['sessionId'] as string;
    const ownId = (paused.structuredContent!['approvals'] as Array<{ id: string }>)[0]!.id;

    const run = await runLegion(['run', '--new-session', '--output', 'json', 'Write the plan'], {
      cwd: workspace.dir,
      env: processEnv(),
      timeoutMs: 45_000,
    });
    expect(run.status, run.stderr).toBe(2);
    const report = JSON.parse(run.stdout) as { sessionId: string; approvals: Array<{ id: string; approver: string }> };
    expect(report.approvals).toMatchObject([{ approver: 'user' }]);
    const humanSession = report.sessionId;
    const humanId = report.approvals[0]!.id;
    expect(humanSession).not.toBe(ownSession);

    const listed = await call(client, 'list_approvals', { session: humanSession });
    expect(listed.structuredContent).toMatchObject({ approvals: [] });
    expect(JSON.stringify(listed)).not.toContain('the human plan');
    expect(JSON.stringify(listed)).not.toContain(humanId);

    const refused = await call(client, 'answer_approval', { session: humanSession, approvals: [{ id: humanId, decision: 'approve' }] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      new RegExp(`${humanId} was not raised by a turn mcp started: mcp decides only requests of its own chains`),
    );
    expect(textOf(refused)).not.toContain('the human plan');
    expect(existsSync(join(workspace.dir, 'plan.txt'))).toBe(false);

    const approved = await runLegion(['approve', '--session', humanSession, humanId], {
      cwd: workspace.dir,
      env: processEnv(),
      timeoutMs: 45_000,
    });
    expect(approved.status, approved.stderr).toBe(0);
    expect(readFileSync(join(workspace.dir, 'plan.txt'), 'utf8')).toBe('the human plan');

    const own = await call(client, 'list_approvals', { session: ownSession });
    expect(own.structuredContent).toMatchObject({ approvals: [{ id: ownId, youDecide: true }] });
    const answered = await call(client, 'answer_approval', { session: ownSession, approvals: [{ id: ownId, decision: 'approve' }] });
    expect(textOf(answered)).toBe('The developer wrote notes.txt.');
    expect(readFileSync(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('hello');
  }, 120_000);
  it("the human's legion run is neither listed nor readable by an MCP client, even in a conversation both went through; its own conversations and delegations are", async () => {
    useModel('coordinator', { provider: 'anthropic', model: 'claude-coord', baseURL: mock.url });
    useModel('developer', { provider: 'openai', model: 'gpt-dev', baseURL: `${mock.url}/v1` });
    mock.on(
      { model: 'claude-coord', userMessage: 'Take notes', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_del', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Note the port' }) }] },
    );
    mock.on({ model: 'gpt-dev', userMessage: 'Note the port' }, { content: 'Port 8080 noted.' });
    mock.on({ model: 'claude-coord', userMessage: 'Take notes', hasToolResult: true }, { content: 'The developer noted it.' });
    // The human's own run in the same session: it delegates to the developer in the same conversation (coordinator__developer).
    mock.on(
      { model: 'claude-coord', userMessage: 'The human secret plan', hasToolResult: false },
      {
        toolCalls: [
          { id: 'toolu_hdel', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Keep the human secret' }) },
        ],
      },
    );
    mock.on({ model: 'gpt-dev', userMessage: 'Keep the human secret' }, { content: 'Kept it safe.' });
    mock.on({ model: 'claude-coord', userMessage: 'The human secret plan', hasToolResult: true }, { content: 'Done with the human plan.' });
    // And a session of the human's alone.
    mock.on({ model: 'claude-coord', userMessage: 'The human private session' }, { content: 'Private reply.' });

    const served = await serveMcpHttp(workspace.dir, processEnv());
    servers.push(served);
    const { client } = mcpClient();
    clients.push(client);
    await connectHttp(client, served);

    const asked = await call(client, 'ask_coordinator', { message: 'Take notes' });
    expect(textOf(asked)).toBe('The developer noted it.');
    const shared = asked.structuredContent!['sessionId'] as string;

    const run = await runLegion(['run', '--output', 'json', 'The human secret plan'], {
      cwd: workspace.dir,
      env: processEnv(),
      timeoutMs: 45_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { sessionId: string }).sessionId).toBe(shared);
    const own = await runLegion(['run', '--new-session', '--output', 'json', 'The human private session'], {
      cwd: workspace.dir,
      env: processEnv(),
      timeoutMs: 45_000,
    });
    expect(own.status, own.stderr).toBe(0);
    const humanSession = (JSON.parse(own.stdout) as { sessionId: string }).sessionId;

    const sessions = await call(client, 'list_sessions', {});
    expect((sessions.structuredContent!['sessions'] as Array<{ id: string }>).map((session) => session.id)).toEqual([shared]);
    expect(JSON.stringify(sessions)).not.toContain(humanSession);

    for (const [session, conversationId] of [
      [humanSession, 'user__coordinator'],
      [shared, 'user__coordinator'],
    ] as const) {
      const refused = await call(client, 'read_conversation', { session, conversationId });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain(`has no conversation "${conversationId}"`);
      expect(JSON.stringify(refused)).not.toMatch(/human|Kept|Private/);
    }
    // Its default is the latest session, the human's: not even the human's conversation ids are named.
    const latest = await call(client, 'read_conversation', {});
    expect(latest.isError).toBe(true);
    expect(textOf(latest)).toContain('It has: none yet');

    const mine = await call(client, 'read_conversation', { session: shared });
    expect(mine.structuredContent).toMatchObject({ conversationId: 'mcp__coordinator' });
    expect(textOf(mine)).toContain('The developer noted it.');
    // The conversation both chains went through: the turn its ask opened, not the human's.
    const delegated = await call(client, 'read_conversation', { session: shared, conversationId: 'coordinator__developer' });
    expect(delegated.isError, textOf(delegated)).toBeFalsy();
    expect((delegated.structuredContent!['messages'] as Array<{ text: string }>).map((message) => message.text)).toEqual([
      'Note the port',
      'Port 8080 noted.',
    ]);
    expect(JSON.stringify(delegated)).not.toMatch(/human|Kept/);
  }, 120_000);
});
