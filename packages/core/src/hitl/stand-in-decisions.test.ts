import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Legion } from '../Legion.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../testing/test-collective.js';

// The MCP client's user (`mcp`, standing in for the human) decides within the chains it started,
// and only once: remembered, its approval would reach the session's or every session's other requests.
describe('a stand-in decides within its own chains, once', () => {
  let test: TestLegion;
  let legion: Legion;
  afterEach(async () => {
    await legion.close();
    await test.cleanup();
  });

  it('approves its own chain\'s request once, and is refused "always" for the session or as a rule', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ id: 'w1', name: 'file_write', input: { path: 'notes.txt', content: 'hello' } }] },
          { text: 'written' },
        ],
      },
    });
    const config = join(test.root, '.legion', 'config.json');
    const current = existsSync(config) ? (JSON.parse(readFileSync(config, 'utf8')) as object) : {};
    writeFileSync(config, JSON.stringify({ ...current, mcpServe: { caller: { approvalAuthority: '*' } } }));
    legion = test.reopen();
    const session = await legion.sessions.create();
    const paused = await legion.send(session, 'Take notes', { from: 'mcp' });
    expect(paused).toMatchObject({ status: 'paused', requests: [{ approver: 'mcp', tool: 'file_write' }] });
    const id = paused.status === 'paused' ? paused.requests[0]!.id : '';

    for (const remember of ['session', 'always'] as const) {
      const refused = await session.answerApprovals([{ id, decision: 'approve', remember }], 'mcp');
      expect(refused).toEqual({
        status: 'error',
        error: expect.stringContaining(`${id}: mcp decides for its own chains only, so it approves once`),
      });
    }
    expect(existsSync(join(test.root, 'notes.txt'))).toBe(false);
    const approved = await session.answerApprovals([{ id, decision: 'approve' }], 'mcp');
    expect(approved).toMatchObject({ status: 'answered', resumed: [{ status: 'success', reply: 'written' }] });
    expect(readFileSync(join(test.root, 'notes.txt'), 'utf8')).toBe('hello');
    expect(legion.approvalRules.list()).toEqual([]);
  }, 60_000);
});
