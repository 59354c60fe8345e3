import { z } from 'zod';
import type { ParticipantInput } from '../../team/collective/participant.js';
import type { LegionEvents } from '../../kernel/events/event-types.js';
import type { TurnResult } from '../../session/turn.js';
import { SUMMARY_SYSTEM_MARK } from '../../model/context/compaction-summary.js';
import { keyEnv } from '../../model/providers/__fixtures__/llm-server.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/test-collective.js';
import {
  startWindowLimitedServer,
  type WindowLimitedReply,
  type WindowLimitedRequest,
  type WindowLimitedServer,
} from '../../testing/window-limited-server.js';
import { defineTool } from '../../tools/tool.js';

// The relief stages decide by one measure: the provider's reported usage for what was sent, plus a
// count of what came since; a count of everything only when there is no report to go by. Through the
// real SDKs against a local server that reports what a provider with another tokenizer would.

type Body = Record<string, unknown>;
type WireMessage = { role: string; content: string | Array<Record<string, unknown>> };

const FILLER = 'The parser keeps a table of token kinds and walks the input once, noting positions for error messages. ';
const isSummary = (body: Body): boolean =>
  JSON.stringify(body['system'] ?? (body['messages'] as WireMessage[])[0] ?? '').includes(SUMMARY_SYSTEM_MARK);
const messagesOf = (body: Body): WireMessage[] => (body['messages'] as WireMessage[]).filter((message) => message.role !== 'system');
const blocksOf = (message: WireMessage): Array<Record<string, unknown>> =>
  typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;

function expectSuccess(result: TurnResult): void {
  if (result.status !== 'success')
    throw new Error(`the turn ended ${result.status}: ${result.status === 'error' ? `${result.code}: ${result.error}` : 'paused'}`);
}

function answer(request: WindowLimitedRequest): WindowLimitedReply {
  return isSummary(request.body) ? { text: 'Summary: the user asked two questions.' } : { text: 'Noted.' };
}

function worker(
  provider: 'anthropic' | 'openai',
  url: string,
  context: Record<string, unknown>,
  extra: Parameters<typeof agentParticipant>[1] = {},
): ParticipantInput {
  const model = provider === 'anthropic' ? 'claude-test' : 'gpt-test';
  return {
    ...agentParticipant('worker', { systemPrompt: 'You answer briefly.', tools: [], delegation: 'none', ...extra }),
    model: { provider, model, baseURL: url },
    context,
  } as ParticipantInput;
}

describe("the compaction trigger and the hard cap decide by the provider's reported usage (real SDKs, local server)", () => {
  let server: WindowLimitedServer | undefined;
  let test: TestLegion | undefined;
  afterEach(async () => {
    await test?.cleanup();
    test = undefined;
    await server?.close();
    server = undefined;
  });

  async function run(options: {
    provider: 'anthropic' | 'openai';
    report: (request: WindowLimitedRequest) => number | null;
    context: Record<string, unknown>;
    turns: string[];
  }): Promise<{ compacted: Array<LegionEvents['context:compacted']>; requests: WindowLimitedRequest[] }> {
    const started = await startWindowLimitedServer({ window: 100_000, respond: answer, reportInputTokens: options.report });
    server = started;
    const url = options.provider === 'anthropic' ? started.anthropicURL : started.openaiURL;
    test = createTestLegion({
      participants: [userParticipant(), worker(options.provider, url, options.context)],
      entryAgent: 'worker',
      env: keyEnv(started.anthropicURL, started.openaiURL),
    });
    const compacted: Array<LegionEvents['context:compacted']> = [];
    test.legion.events.on('context:compacted', (event) => compacted.push(event));
    const session = await test.legion.sessions.create();
    for (const text of options.turns) expectSuccess(await test.legion.send(session, text));
    return { compacted, requests: started.requests };
  }

  it('compacts at the figure the provider reports, far above the local count, and counts when a provider reports none', async () => {
    // A provider whose tokenizer counts 20,000 tokens more than ours for what it was sent: ours alone stays far below the threshold.
    const context = { window: 100_000, outputReserve: 4_000, summarizeAtTokens: 10_000, pruneAtTokens: 90_000, protectRecentTokens: 0 };
    const reported = await run({
      provider: 'anthropic',
      report: (request) => request.tokens + 20_000,
      context,
      turns: ['First question?', 'Second question?'],
    });
    expect(reported.requests.every((request) => request.tokens < 1_000)).toBe(true);
    // The first request had no report to go by; the second turn's opened past the reported threshold and was compacted first.
    expect(reported.requests.map((request) => (isSummary(request.body) ? 'summary' : 'worker'))).toEqual(['worker', 'summary', 'worker']);
    expect(reported.compacted).toEqual([
      expect.objectContaining({ participantId: 'worker', reason: 'auto', messageIds: expect.objectContaining({ count: 2 }) }),
    ]);

    // Servers that report no usage (OpenAI protocol: no usage chunk; Anthropic: zero input tokens): the request is counted whole.
    for (const provider of ['openai', 'anthropic'] as const) {
      await test?.cleanup();
      await server?.close();
      const counted = await run({
        provider,
        report: () => null,
        context: { ...context, summarizeAtTokens: 3_000 },
        turns: [`First: ${FILLER.repeat(80)}`, `Second: ${FILLER.repeat(80)}`],
      });
      expect(
        counted.requests.map((request) => (isSummary(request.body) ? 'summary' : 'worker')),
        provider,
      ).toEqual(['worker', 'summary', 'worker']);
      expect(counted.compacted, provider).toHaveLength(1);
    }
  });

  it('cuts a request to the window at the reported figure before sending it', async () => {
    // No compaction (its threshold is past the window): the hard cap alone keeps the request within 46,000 tokens.
    const context = { window: 50_000, outputReserve: 4_000, summarizeAtTokens: 200_000, pruneAtTokens: 200_000, protectRecentTokens: 0 };
    const first = `First: ${FILLER.repeat(40)}`;
    // The reply to the second request reports 46,200 input tokens: counted here, the conversation is under 1,000.
    const { requests } = await run({
      provider: 'anthropic',
      report: (request) => (messagesOf(request.body).length === 3 ? 46_200 : request.tokens),
      context,
      turns: [first, 'Second question?', 'Third question?'],
    });
    expect(requests.every((request) => request.tokens < 2_000)).toBe(true);
    const [, second, third] = requests.map((request) => messagesOf(request.body));
    // The second request follows a reply that reported its own small figure: sent whole.
    expect(second).toHaveLength(3);
    // The third: 46,200 and the new question pass 46,000, so the oldest turn is left out (saying so), and what is left fits.
    expect(third!.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(third![0])).toContain('earlier messages of this conversation left out');
    expect(JSON.stringify(third)).not.toContain('First: ');
  });
});

describe('a compaction made in the middle of a step', () => {
  let server: WindowLimitedServer | undefined;
  let test: TestLegion | undefined;
  afterEach(async () => {
    await test?.cleanup();
    test = undefined;
    await server?.close();
  });

  it('sends the request that follows it pruned like any other', async () => {
    server = await startWindowLimitedServer({
      window: 100_000,
      respond: (request) => {
        if (isSummary(request.body)) return { text: 'Summary: the user asked for logs.' };
        const last = messagesOf(request.body).at(-1)!;
        return blocksOf(last).some((block) => block['type'] === 'tool_result')
          ? { text: 'Read it.' }
          : { toolCalls: [{ name: 'read_log', input: {} }] };
      },
    });
    // Each turn reads a ~1,850-token log. Past 5,000 tokens old results are pruned (outside the last two user turns and
    // the newest 4,700 tokens); past 2,000 the older turns are summarized, once the newest 4,700 tokens start at a turn
    // after the first: in turn 4, after its log, turn 1 goes, and turns 2 to 4 are kept, turn 2's log outside the protected part.
    const context = {
      window: 100_000,
      outputReserve: 4_000,
      summarizeAtTokens: 2_000,
      pruneAtTokens: 5_000,
      protectRecentTokens: 4_700,
      evictAboveTokens: 50_000,
    };
    test = createTestLegion({
      participants: [userParticipant(), worker('anthropic', server.anthropicURL, context, { tools: ['read_log'] })],
      entryAgent: 'worker',
      env: keyEnv(server.anthropicURL),
    });
    let reads = 0;
    test.legion.tools.register(
      defineTool({
        name: 'read_log',
        description: 'Reads the build log',
        effect: 'read',
        inputSchema: z.object({}),
        async execute() {
          reads++;
          return { status: 'success', data: `log ${reads}: ${FILLER.repeat(90)}` };
        },
      }),
    );
    const session = await test.legion.sessions.create();
    for (let turn = 1; turn <= 4; turn++) expectSuccess(await test.legion.send(session, `Turn ${turn}: read the log.`));

    const firstSummary = server.requests.findIndex((request) => isSummary(request.body));
    expect(firstSummary).toBeGreaterThan(0);
    const after = server.requests[firstSummary + 1]!;
    expect(isSummary(after.body)).toBe(false);
    const results = messagesOf(after.body)
      .flatMap(blocksOf)
      .filter((block) => block['type'] === 'tool_result')
      .map((block) => JSON.stringify(block['content']));
    // Turn 2's log, outside the protected part, goes as a stub naming its artifact; turns 3 and 4's whole.
    expect(results).toHaveLength(3);
    expect(results[0]).toContain('[Pruned from your context: this earlier result of read_log');
    expect(results[1]).toContain('log 3: ');
    expect(results[2]).toContain('log 4: ');
  });
});
