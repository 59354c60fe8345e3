import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParticipantInput } from '../../team/collective/participant.js';
import type { LegionEvents } from '../../kernel/events/event-types.js';
import { keyEnv } from '../../model/providers/__fixtures__/llm-server.js';
import { useLlmServer } from '../../model/providers/__fixtures__/use-llm-server.js';
import { agentParticipant, userParticipant, type TestLegion } from '../../testing/index.js';

describe('what a model call costs, through the real SDKs', () => {
  const { server, createTestLegion } = useLlmServer();
  let test: TestLegion | undefined;

  const writer = (model: string): ParticipantInput =>
    ({
      ...agentParticipant('writer', { delegation: 'none', tools: 'none' }),
      model: { provider: 'anthropic', model, baseURL: server.anthropicURL },
    }) as ParticipantInput;

  async function costOfOneCall(model: string, pricing?: Record<string, unknown>): Promise<number | null> {
    test = createTestLegion({ participants: [userParticipant(), writer(model)], entryAgent: 'writer', env: keyEnv(server.anthropicURL) });
    let legion = test.legion;
    if (pricing) {
      const file = join(test.root, '.legion', 'config.json');
      writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>), pricing }));
      legion = test.reopen();
    }
    server.mock.on({ model }, { content: 'Written.', usage: { input_tokens: 250, output_tokens: 40 } });
    const reports: Array<LegionEvents['usage:report']> = [];
    legion.events.on('usage:report', (event) => reports.push(event));
    const session = await legion.sessions.create();
    try {
      expect(await legion.send(session, 'Write it')).toMatchObject({ status: 'success', reply: 'Written.' });
      const { total } = await session.usage();
      expect(reports.map((report) => report.costUsd)).toEqual([total.unpricedCalls === 1 ? null : total.costUsd]);
      return reports[0]!.costUsd;
    } finally {
      if (legion !== test.legion) await legion.close();
    }
  }

  it('charges nothing for a model served from a loopback address, whatever its name', async () => {
    expect(await costOfOneCall('claude-sonnet-4-5')).toBe(0);
  });

  it('charges a local model what the config prices it at, matched by exact id through a dated alias', async () => {
    expect(await costOfOneCall('claude-sonnet-4-5-20250929', { 'claude-sonnet-4-5': { input: 3, output: 15 } })).toBeCloseTo(
      (250 * 3 + 40 * 15) / 1e6,
      12,
    );
  });

  it('no longer lets a pricing key price a model whose id it only starts', async () => {
    expect(await costOfOneCall('claude-sonnet-4-5-experimental', { 'claude-sonnet-4-5': { input: 3, output: 15 } })).toBe(0);
  });
});
