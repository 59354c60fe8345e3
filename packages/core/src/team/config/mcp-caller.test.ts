import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/index.js';

describe('the MCP caller participant (mcpServe.caller)', () => {
  let test: TestLegion | undefined;
  afterEach(async () => {
    await test?.cleanup();
    test = undefined;
  });

  const writer = () =>
    createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator')],
      scripts: { coordinator: [{ toolCalls: [{ name: 'file_write', input: { path: 'a.txt', content: 'x' } }] }, { text: 'done' }] },
    });

  it('exists in every Legion without being listed, sends like a user, and hands approvals it may not give to the human', async () => {
    test = writer();
    const { legion } = test;
    const caller = legion.mcpCaller();
    expect(caller).toMatchObject({ id: 'mcp', type: 'user', medium: 'mcp', approvalAuthority: 'none', actsFor: 'user' });
    expect(legion.collective.ids()).toEqual(['coordinator', 'user']);
    expect(legion.collective.defaultUser()?.id).toBe('user');

    const session = await legion.sessions.create();
    const result = await legion.send(session, 'write it', { from: 'mcp' });

    expect(result).toMatchObject({
      status: 'paused',
      conversationId: 'mcp__coordinator',
      requests: [{ requester: 'coordinator', approver: 'user', tool: 'file_write' }],
    });
    const id = result.status === 'paused' ? result.requests[0]!.id : '';
    expect(await session.answerApprovals([{ id, decision: 'approve' }], 'mcp')).toMatchObject({
      status: 'error',
      error: expect.stringContaining('mcp has no authority'),
    });
    expect(await session.answerApprovals([{ id, decision: 'approve' }], 'user')).toMatchObject({
      status: 'answered',
      resumed: [{ status: 'success', reply: 'done' }],
    });
  });

  it('takes its id and approval authority from the config: with authority it is the approver itself', async () => {
    test = writer();
    const file = join(test.root, '.legion/config.json');
    writeFileSync(
      file,
      JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), mcpServe: { caller: { id: 'claude', approvalAuthority: '*' } } }),
    );
    const legion = test.reopen();
    for (const [id, provider] of Object.entries(test.providers)) legion.providers.useFor(id, provider);
    const session = await legion.sessions.create();

    const result = await legion.send(session, 'write it', { from: 'claude' });

    expect(result).toMatchObject({ status: 'paused', conversationId: 'claude__coordinator', requests: [{ approver: 'claude' }] });
    await legion.close();
  });
});
