import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParticipantInput } from '../../team/collective/participant.js';
import { SUMMARY_SYSTEM_MARK } from '../../model/context/compaction-summary.js';
import { keyEnv } from '../../model/providers/__fixtures__/llm-server.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/test-collective.js';
import { startWindowLimitedServer, type WindowLimitedRequest, type WindowLimitedServer } from '../../testing/window-limited-server.js';

const STEPS = 80;
const isSummary = (body: Record<string, unknown>): boolean => JSON.stringify(body['system'] ?? '').includes(SUMMARY_SYSTEM_MARK);

/** About 4 KB of distinct lines per file: 80 of them are far more than a 4k window holds. */
function chunk(index: number): string {
  const lines: string[] = [];
  for (let line = 0; lines.join('\n').length < 4_000; line++) lines.push(`chunk ${index} line ${line}: job ${index * 100 + line} moved.`);
  return lines.join('\n');
}

describe('a 4k window set alone ("context": { "window": 4096 }) on a model the table sizes far larger', () => {
  let server: WindowLimitedServer;
  let test: TestLegion | undefined;
  afterEach(async () => {
    await test?.cleanup();
    test = undefined;
    await server.close();
  });

  // gpt-4o-mini's table entry keeps 16,384 tokens for the reply: kept whole, a 4k window had nothing left for the request.
  for (const context of [{ window: 4_096 }, { profile: 'small', window: 4_096 }]) {
    it(`runs an ${STEPS}-step task with no request over the window: ${JSON.stringify(context)}`, async () => {
      let step = 0;
      server = await startWindowLimitedServer({
        window: 4_096,
        respond: (request: WindowLimitedRequest) => {
          if (isSummary(request.body)) return { text: `Summary: reading the chunks under data/ in order; read up to chunk ${step - 1}.` };
          step++;
          return step <= STEPS ? { toolCalls: [{ name: 'file_read', input: { path: `data/chunk-${step}.txt` } }] } : { text: 'All read.' };
        },
      });
      const worker = {
        ...agentParticipant('worker', { systemPrompt: 'You read files and report.', tools: ['file_read'], delegation: 'none' }),
        model: { provider: 'openai', model: 'gpt-4o-mini', baseURL: server.openaiURL },
        context,
        limits: { maxIterations: STEPS + 5 },
      } as ParticipantInput;
      test = createTestLegion({ participants: [userParticipant(), worker], entryAgent: 'worker', env: keyEnv(server.anthropicURL) });
      mkdirSync(join(test.root, 'data'));
      for (let index = 1; index <= STEPS; index++) writeFileSync(join(test.root, 'data', `chunk-${index}.txt`), chunk(index));
      const session = await test.legion.sessions.create();

      const result = await test.legion.send(session, 'Read every chunk under data/ in order.');

      expect(result).toMatchObject({ status: 'success', reply: 'All read.' });
      expect(server.requests.filter((request) => request.rejected)).toEqual([]);
      expect(server.requests.filter((request) => !isSummary(request.body))).toHaveLength(STEPS + 1);
      for (const request of server.requests) expect(request.tokens).toBeLessThanOrEqual(4_096);
    }, 120_000);
  }
});
