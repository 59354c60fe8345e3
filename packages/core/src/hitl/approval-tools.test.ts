import type { ModelRequest } from '../model/providers/llm-provider.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../testing/test-collective.js';

function resultOf(request: ModelRequest, toolUseId: string): string {
  for (const message of request.messages) {
    for (const block of message.content)
      if (block.type === 'tool_result' && block.toolUseId === toolUseId)
        return typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
  }
  throw new Error(`no result for ${toolUseId}`);
}

// The whole engine on scripted models: what one chain waits on is not another chain's agent to read.
describe('list_approvals', () => {
  let test: TestLegion;
  afterEach(() => test.cleanup());

  it("shows an agent the requests that concern it, not the human's pending command of another chain", async () => {
    const seen: Record<string, string> = {};
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('alpha'), agentParticipant('beta')],
      entryAgent: 'alpha',
      scripts: {
        alpha: [{ toolCalls: [{ id: 'a1', name: 'file_write', input: { path: 'plan.txt', content: 'alpha-private-plan' } }] }],
        beta: [
          { toolCalls: [{ id: 'b1', name: 'list_approvals', input: { status: 'pending' } }] },
          (request) => {
            seen['beta'] = resultOf(request, 'b1');
            return { text: 'looked' };
          },
        ],
      },
    });
    const { legion } = test;
    const session = await legion.sessions.create();
    const paused = await legion.send(session, 'Write the plan', { to: 'alpha' });
    expect(paused).toMatchObject({ status: 'paused' });
    expect(await legion.send(session, 'Look around', { to: 'beta' })).toMatchObject({ status: 'success', reply: 'looked' });
    expect(seen['beta']).toBe('No approval requests.');
    expect((await session.approvals.list({ status: 'pending' })).map((view) => view.requester)).toEqual(['alpha']);
  }, 60_000);
});
