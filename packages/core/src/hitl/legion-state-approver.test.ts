import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../testing/index.js';

describe("a call that changes Legion's own state is approved only by a person", () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('an agent approver with authority "*" is passed over: the request waits for the user', async () => {
    const command = `echo '{"id":"evil"}' > .legion/collective/participants/evil.json`;
    test = createTestLegion({
      participants: [
        userParticipant(),
        // A person made it an approver of everything; a worker's write to the roster must still reach the person.
        { ...agentParticipant('coordinator', { delegation: ['developer'] }), approvalAuthority: '*' } as never,
        agentParticipant('developer', { delegation: 'none' }),
      ],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [{ toolCalls: [{ id: 'c1', name: 'communicate', input: { to: 'developer', message: 'update the roster' } }] }],
        developer: [{ toolCalls: [{ id: 'd1', name: 'shell_run', input: { command } }] }],
      },
    });
    const session = await test.legion.sessions.create();
    const paused = await test.legion.send(session, 'go');
    expect(paused.status).toBe('paused');
    expect(paused.status === 'paused' ? paused.requests : []).toMatchObject([
      { requester: 'developer', approver: 'user', tool: 'shell_run', input: { command } },
    ]);
    // The agent approver cannot decide it: it was not addressed to it.
    const [request] = await session.approvals.list({ status: 'pending' });
    const byAgent = await session.answerApprovals([{ id: request!.id, decision: 'approve' }], 'coordinator');
    expect(byAgent).toMatchObject({
      status: 'error',
      error: expect.stringContaining(`${request!.id} is addressed to user, not to coordinator`),
    });
    expect(existsSync(join(test.root, '.legion', 'collective', 'participants', 'evil.json'))).toBe(false);
    test.assertScriptsDone();
  });
});
