import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParticipantInput } from '../../team/collective/participant.js';
import { CARRY_OVER_TAG } from '../../model/context/compaction-carry-over.js';
import { SUMMARY_SYSTEM_MARK } from '../../model/context/compaction-summary.js';
import { keyEnv } from '../../model/providers/__fixtures__/llm-server.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/test-collective.js';
import { startWindowLimitedServer, type WindowLimitedRequest, type WindowLimitedServer } from '../../testing/window-limited-server.js';

type Body = Record<string, unknown>;
type WireMessage = { role: string; content: string | Array<Record<string, unknown>> };

const STEPS = 200;
const TASK = 'Read every chunk under data/ in order and report when all are read.';
const isSummary = (body: Body): boolean => JSON.stringify(body['system'] ?? '').includes(SUMMARY_SYSTEM_MARK);
const messagesOf = (body: Body): WireMessage[] => body['messages'] as WireMessage[];
const blocksOf = (message: WireMessage): Array<Record<string, unknown>> =>
  typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;

/** About 5 KB of distinct lines: more than the small profile lets one tool result keep in the context. */
function chunk(index: number): string {
  const lines: string[] = [];
  for (let line = 0; lines.join('\n').length < 5_000; line++)
    lines.push(`chunk ${index} line ${line}: the scheduler moved job ${index * 100 + line} to worker ${line % 7} after a retry.`);
  return lines.join('\n');
}

describe('a 4k-window agent on a 200-step task with 5 KB tool outputs (Anthropic SDK, a server that refuses what does not fit)', () => {
  let server: WindowLimitedServer;
  let test: TestLegion | undefined;
  afterEach(async () => {
    await test?.cleanup();
    test = undefined;
    await server.close();
  });

  it('completes: every request fits the window, outputs are evicted, the turn is compacted between its steps, nothing is lost on disk', async () => {
    let step = 0;
    server = await startWindowLimitedServer({
      window: 4_096,
      respond: (request: WindowLimitedRequest) => {
        if (isSummary(request.body))
          return { text: `Summary: the user asked worker to read the chunks under data/ in order; read up to chunk ${step - 1}.` };
        step++;
        return step <= STEPS
          ? { toolCalls: [{ name: 'file_read', input: { path: `data/chunk-${step}.txt` } }] }
          : { text: `All ${STEPS} chunks read.` };
      },
    });
    const worker = {
      ...agentParticipant('worker', { systemPrompt: 'You read files and report.', tools: ['file_read'], delegation: 'none' }),
      model: { provider: 'anthropic', model: 'local-4k', baseURL: server.anthropicURL },
      context: { window: 4_096, outputReserve: 512 },
      limits: { maxIterations: STEPS + 5 },
    } as ParticipantInput;
    test = createTestLegion({ participants: [userParticipant(), worker], entryAgent: 'worker', env: keyEnv(server.anthropicURL) });
    mkdirSync(join(test.root, 'data'));
    for (let index = 1; index <= STEPS; index++) writeFileSync(join(test.root, 'data', `chunk-${index}.txt`), chunk(index));
    const compactions: number[] = [];
    test.legion.events.on('context:compacted', (event) => compactions.push(event.tokensBefore ?? 0));
    const session = await test.legion.sessions.create();

    const result = await test.legion.send(session, TASK);

    expect(result).toMatchObject({ status: 'success', reply: `All ${STEPS} chunks read.` });
    expect(server.requests.filter((request) => request.rejected)).toEqual([]);
    const agentRequests = server.requests.filter((request) => !isSummary(request.body));
    expect(agentRequests).toHaveLength(STEPS + 1);
    for (const request of server.requests) expect(request.tokens).toBeLessThanOrEqual(4_096);
    // One task is one turn: it was compacted between its steps, many times, and the task itself always came along verbatim.
    expect(compactions.length).toBeGreaterThan(10);
    const last = agentRequests.at(-1)!.body;
    const opening = blocksOf(messagesOf(last)[0]!)
      .map((block) => String(block['text'] ?? ''))
      .join('\n');
    expect(opening.startsWith(CARRY_OVER_TAG)).toBe(true);
    expect(opening).toContain(TASK);
    // Every call the model sees still has its result right after it.
    for (const request of agentRequests) {
      const messages = messagesOf(request.body);
      messages.forEach((message, index) => {
        const uses = blocksOf(message)
          .filter((block) => block['type'] === 'tool_use')
          .map((block) => block['id']);
        if (uses.length > 0) expect(blocksOf(messages[index + 1]!).map((block) => block['tool_use_id'])).toEqual(uses);
      });
    }

    // On disk: all 200 results (previews naming their artifacts), each output whole in the artifacts, the compactions logged.
    const log = readFileSync(join(test.root, '.legion', 'sessions', session.id, 'conversations', 'user__worker.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; role?: string; content?: Array<{ type: string; content?: string }> });
    const results = log.flatMap((entry) =>
      entry.kind === 'message' ? (entry.content ?? []).filter((block) => block.type === 'tool_result') : [],
    );
    expect(results).toHaveLength(STEPS);
    expect(log.filter((entry) => entry.kind === 'compaction')).toHaveLength(compactions.length);
    const artifacts = readdirSync(join(test.root, '.legion', 'sessions', session.id, 'artifacts'));
    expect(artifacts).toHaveLength(STEPS);
    const first = results[0]!.content!;
    const name = /tool-[^\s"]+\.txt/.exec(first)?.[0];
    expect(name).toBeDefined();
    expect(readFileSync(join(test.root, '.legion', 'sessions', session.id, 'artifacts', name!), 'utf8')).toContain(
      chunk(1).split('\n').at(-1),
    );
  }, 120_000);
});
