import type { ModelRequest } from '../../../model/providers/llm-provider.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../../testing/test-collective.js';

/** The text of the tool result for `toolUseId` in the last model request. */
function resultOf(request: ModelRequest, toolUseId: string): string {
  for (const message of request.messages) {
    for (const block of message.content)
      if (block.type === 'tool_result' && block.toolUseId === toolUseId)
        return typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
  }
  throw new Error(`no result for ${toolUseId}`);
}

// Two agents of one collective, in one session, on scripted models through the whole engine:
// one agent's background process is not another's to list, read or stop; the human's it is.
describe('background processes belong to whoever started them (and the human)', () => {
  let test: TestLegion;
  afterEach(() => test.cleanup());

  it("an agent neither lists, polls nor stops another agent's process; the human lists and stops it", async () => {
    const shellAuto = { policies: { 'effect:shell': 'auto' as const } };
    const seen: Record<string, string> = {};
    test = createTestLegion({
      participants: [userParticipant(), { ...agentParticipant('alpha'), ...shellAuto }, { ...agentParticipant('beta'), ...shellAuto }],
      entryAgent: 'alpha',
      scripts: {
        alpha: [
          { toolCalls: [{ id: 'a1', name: 'process_start', input: { command: 'sleep 300 # alpha-private-marker' } }] },
          (request) => ({ text: resultOf(request, 'a1') }),
        ],
        beta: [
          {
            toolCalls: [
              { id: 'b1', name: 'process_list', input: {} },
              { id: 'b2', name: 'process_poll', input: { id: 'proc-1' } },
              { id: 'b3', name: 'process_stop', input: { id: 'proc-1' } },
            ],
          },
          (request) => {
            for (const id of ['b1', 'b2', 'b3']) seen[id] = resultOf(request, id);
            return { text: 'looked' };
          },
        ],
      },
    });
    const { legion } = test;
    const session = await legion.sessions.create();
    expect(await legion.send(session, 'Start the server', { to: 'alpha' })).toMatchObject({
      status: 'success',
      reply: expect.stringMatching(/^Started proc-1 /),
    });
    expect(await legion.send(session, 'Look around', { to: 'beta' })).toMatchObject({ status: 'success', reply: 'looked' });
    test.assertScriptsDone();

    expect(seen['b1']).toBe('No background processes.');
    for (const id of ['b2', 'b3']) {
      expect(seen[id]).toMatch(
        /proc-1 was started by another participant \(or in another session\): only it and the user may poll or stop it/,
      );
      expect(seen[id]).not.toContain('alpha-private-marker');
    }
    expect(legion.processes.list()).toMatchObject([{ process: { id: 'proc-1', owner: 'alpha' }, running: true }]);

    const listed = await legion.executeTool('process_list', {}, { session });
    expect(listed).toMatchObject({
      status: 'success',
      content: expect.stringMatching(/proc-1 {2}running .* by alpha .*alpha-private-marker/),
    });
    expect(await legion.executeTool('process_stop', { id: 'proc-1' }, { session })).toMatchObject({
      status: 'success',
      content: expect.stringMatching(/^Stopped proc-1: finished/),
    });
    expect(legion.processes.list()).toEqual([]);
  }, 60_000);
});
