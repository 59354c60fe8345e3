import type { ParticipantInput } from '../../team/collective/participant.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/index.js';
import { loadTokenCounter } from './token-count.js';
import { loadPriceDataset } from '../../team/config/price-dataset.js';

describe('legion.contextReport', () => {
  // Hosted models' windows come from the bundled catalogue, which a turn loads before it needs it.
  beforeAll(async () => {
    await loadPriceDataset();
  });

  let test: TestLegion | undefined;
  afterEach(async () => {
    await test?.cleanup();
    test = undefined;
  });

  it('counts the system prompt, every tool definition and the conversation, and warns of an unknown model and tools over the budget', async () => {
    test = createTestLegion({
      // Whole tool schemas, as before compact ones: 32 of them overflow a small profile.
      participants: [
        userParticipant(),
        { ...agentParticipant('worker', { tools: 'all', delegation: 'none' }), context: { toolSchemas: 'full' } } as ParticipantInput,
        agentParticipant('lean', { tools: ['file_read'], delegation: 'none' }),
      ],
      entryAgent: 'worker',
      scripts: { worker: () => ({ text: 'Hello back.' }) },
    });
    const session = await test.legion.sessions.create();
    await test.legion.send(session, 'Hello');

    const report = await test.legion.contextReport('worker', { session });
    const count = await loadTokenCounter();
    // A scripted model is in no table: the small profile of the default 8k window (it prunes at 5,200: 2,600 of 4,096 scaled).
    expect(report).toMatchObject({
      agentId: 'worker',
      model: 'scripted/worker',
      windowSource: 'default',
      limit: 8_192 - 1_024,
      settings: { profile: 'small', window: 8_192 },
    });
    const visible = [...test.legion.tools.list()].filter((tool) => tool.name !== 'communicate');
    expect(report.tools.count).toBe(visible.length);
    expect(report.tools.tokens).toBeGreaterThan(2_600);
    expect(report.tools.share).toBeCloseTo(report.tools.tokens / 8_192, 5);
    expect(report.tools.largest).toHaveLength(5);
    expect(report.tools.largest[0]!.tokens).toBeGreaterThanOrEqual(report.tools.largest[4]!.tokens);
    // No usage reported by the scripted model: both messages counted, with their framing.
    expect(report.messages).toMatchObject({
      conversationId: 'user__worker',
      count: 2,
      tokens: count('Hello') + count('Hello back.') + 8,
      fromProvider: 0,
    });
    expect(report.total).toBe(report.system + report.tools.tokens + report.messages!.tokens);
    expect(report.warnings).toEqual([
      expect.stringMatching(
        /^worker: the model scripted\/worker is not in the model table, so its window is taken to be 8192 tokens\. Give the real one: "models"/,
      ),
      expect.stringMatching(
        /^worker: its \d+ tool definitions alone take \d+ tokens, \d+% of the 8192-token window, more than the small profile's budget of 5200 tokens/,
      ),
    ]);

    const lean = await test.legion.contextReport('lean');
    // The small profile's compact schemas: what its first request carries is load_tools, whose catalogue names file_read.
    expect(lean.settings.toolSchemas).toBe('compact');
    expect(lean.tools.largest.map((tool) => tool.name)).toEqual(['load_tools']);
    expect(lean.tools.tokens).toBeLessThan(report.tools.tokens / 4);
    expect(lean.messages).toBeUndefined();
    expect(lean.warnings).toHaveLength(1);
  });

  it('refuses a participant that is not an agent', async () => {
    test = createTestLegion({ participants: [userParticipant(), agentParticipant('worker')], entryAgent: 'worker' });
    await expect(test.legion.contextReport('user')).rejects.toThrow(/not an agent/);
  });
});
