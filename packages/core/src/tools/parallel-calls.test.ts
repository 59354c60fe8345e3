import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../testing/index.js';

describe('a response with many tool calls run at once', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('runs sixteen parallel calls without Node warning of an abort-listener leak on the turn', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      // Sixteen different inputs: the same call repeated would be stopped as a loop.
      const others = Array.from({ length: 15 }, (_, index) => `helper${index + 1}`);
      const calls = ['lead', ...others].map((id, index) => ({ id: `call_${index + 1}`, name: 'get_participant', input: { id } }));
      test = createTestLegion({
        participants: [userParticipant(), agentParticipant('lead'), ...others.map((id) => agentParticipant(id))],
        entryAgent: 'lead',
        scripts: {
          lead: [
            { toolCalls: calls },
            {
              expect: (request) => {
                const results = request.messages.at(-1)!.content.filter((block) => block.type === 'tool_result');
                expect(results).toHaveLength(16);
                expect(
                  results
                    .filter((block) => block.type === 'tool_result' && block.isError)
                    .map((block) => block.type === 'tool_result' && block.content),
                ).toEqual([]);
              },
              text: 'looked sixteen times',
            },
          ],
        },
      });
      const reply = await test.legion.send(await test.legion.sessions.create(), 'Look yourself up, sixteen times at once');
      expect(reply).toMatchObject({ status: 'success', reply: 'looked sixteen times' });
      // process warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map((warning) => warning.message)).toEqual([]);
      test.assertScriptsDone();
    } finally {
      process.off('warning', onWarning);
    }
  });
});
