import { z } from 'zod';
import type { ContextSettings } from '../../team/collective/context-schema.js';
import type { ParticipantInput } from '../../team/collective/participant.js';
import type { LegionEvents } from '../../kernel/events/event-types.js';
import type { Message, Usage } from '../../kernel/message.js';
import { keyEnv } from '../providers/__fixtures__/llm-server.js';
import { useLlmServer } from '../providers/__fixtures__/use-llm-server.js';
import type { ToolDefinition } from '../providers/llm-provider.js';
import { agentParticipant, userParticipant, type TestLegion } from '../../testing/index.js';
import { defineTool } from '../../tools/tool.js';
import { measureContext, recordSentRequest } from './token-accounting.js';
import { loadTokenCounter, tokenUpperBound, type TokenCounter } from './token-count.js';

/** The per-message framing the accounting adds (role tokens). */
const FRAMING = 4;

const settings = (fields: Partial<ContextSettings> = {}): ContextSettings => ({
  profile: 'cloud',
  window: 200_000,
  outputReserve: 16_000,
  evictAboveTokens: 20_000,
  pruneAtTokens: 128_000,
  summarizeAtTokens: 171_000,
  protectRecentTokens: 40_000,
  keepRecentMessages: 4,
  scratchbook: false,
  artifactMaxBytes: 10 * 1024 * 1024,
  toolSchemas: 'full',
  ...fields,
});
/** Thresholds of 1 token: every request is counted with the tokenizer, never bounded by its bytes. */
const counting = settings({ pruneAtTokens: 1, summarizeAtTokens: 1 });

let sequence = 0;
const message = (role: Message['role'], text: string, usage?: Usage): Message => ({
  id: `m${sequence++}`,
  at: '2026-01-01T00:00:00.000Z',
  role,
  content: [{ type: 'text', text }],
  ...(usage ? { usage } : {}),
});
const toolResult = (text: string): Message => ({
  id: `m${sequence++}`,
  at: '2026-01-01T00:00:00.000Z',
  role: 'user',
  content: [{ type: 'tool_result', toolUseId: `t${sequence}`, content: text }],
});

const searchTool: ToolDefinition = {
  name: 'search',
  description: 'Searches the code base',
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
};

/** The real tokenizer, with every call it makes recorded. */
async function recordingCounter(): Promise<{ count: TokenCounter; texts: string[] }> {
  const real = await loadTokenCounter();
  const texts: string[] = [];
  return {
    texts,
    count: (text) => {
      texts.push(text);
      return real(text);
    },
  };
}

describe('measureContext', () => {
  it("takes what was sent from the reply's reported usage and counts only the messages after it", async () => {
    const { count, texts } = await recordingCounter();
    const real = await loadTokenCounter();
    const system = 'You are the reviewer. Review the change you are given.';
    const history: Message[] = [message('user', 'Review src/app.ts please')];
    const first = await measureContext({ system, tools: [searchTool], messages: history }, counting, { countTokens: count });
    const whole = real(system) + real(JSON.stringify(searchTool)) + real('Review src/app.ts please') + FRAMING;
    expect(first).toMatchObject({
      total: whole,
      fromProvider: 0,
      estimated: whole,
      system: real(system),
      tools: real(JSON.stringify(searchTool)),
      bounded: false,
      limit: 184_000,
    });
    recordSentRequest({ system, tools: [searchTool], messages: history });

    // The provider answers, saying it read 1,200 tokens (300 from its cache) and wrote 80.
    history.push(
      message('assistant', 'Looking at it.', { inputTokens: 800, cacheReadTokens: 300, cacheWriteTokens: 100, outputTokens: 80 }),
    );
    history.push(toolResult('src/app.ts: 120 lines, no tests'));
    texts.length = 0;
    const second = await measureContext({ system, tools: [searchTool], messages: history }, counting, { countTokens: count });
    const delta = real('src/app.ts: 120 lines, no tests') + FRAMING;
    expect(second).toMatchObject({ fromProvider: 1_280, estimated: delta, total: 1_280 + delta, bounded: false });
    expect(second.messages).toBe(1_280 + delta - second.system - second.tools);
    // Only the new message was tokenized: not the history, not the system prompt, not the tools.
    expect(texts).toEqual(['src/app.ts: 120 lines, no tests']);
  });

  it('tokenizes a history of N messages once, not once per step', async () => {
    const { count, texts } = await recordingCounter();
    const system = 'You are the builder.';
    const history: Message[] = [message('user', 'Build it')];
    const steps = 30;
    for (let step = 0; step < steps; step++) {
      await measureContext({ system, tools: [searchTool], messages: history }, counting, { countTokens: count });
      recordSentRequest({ system, tools: [searchTool], messages: history });
      // A provider that reports no usage (some local servers): everything is estimated, and still counted once.
      history.push(message('assistant', `step ${step}: running the build`));
      history.push(toolResult(`build output ${step}: ok`));
    }
    const last = await measureContext({ system, tools: [searchTool], messages: history }, counting, { countTokens: count });
    expect(history).toHaveLength(1 + 2 * steps);
    // Each message, the system prompt and the tool definition: one call each.
    expect(texts).toHaveLength(history.length + 2);
    expect(new Set(texts).size).toBe(texts.length);
    expect(last.fromProvider).toBe(0);
    expect(last.estimated).toBe(last.total);
  });

  it('does not trust a report once the messages before the reply changed (pruned, compacted, trimmed) or the tools grew', async () => {
    const { count, texts } = await recordingCounter();
    const system = 'You are the pruned one.';
    const history: Message[] = [
      message('user', 'Start'),
      message('assistant', 'Reading.'),
      toolResult('a long tool output '.repeat(20)),
      message('user', 'Go on'),
    ];
    recordSentRequest({ system, tools: [], messages: history });
    history.push(message('assistant', 'Done reading.', { inputTokens: 5_000, outputTokens: 10 }));
    history.push(message('user', 'And now?'));
    expect((await measureContext({ system, tools: [], messages: history }, counting, { countTokens: count })).fromProvider).toBe(5_010);

    // A stage replaced the old tool output with a stub: the report covers what is no longer sent.
    const pruned = [history[0]!, history[1]!, toolResult('[pruned]'), ...history.slice(3)];
    const afterPruning = await measureContext({ system, tools: [], messages: pruned }, counting, { countTokens: count });
    expect(afterPruning.fromProvider).toBe(0);
    expect(afterPruning.total).toBe(afterPruning.system + afterPruning.messages);
    // The oldest message dropped: the same.
    expect((await measureContext({ system, tools: [], messages: history.slice(1) }, counting, { countTokens: count })).fromProvider).toBe(
      0,
    );
    // The same messages, but a tool definition more than was sent with them.
    expect((await measureContext({ system, tools: [searchTool], messages: history }, counting, { countTokens: count })).fromProvider).toBe(
      0,
    );
    // And each message was tokenized once through all of it.
    expect(texts.filter((text) => text === 'Start')).toHaveLength(1);
  });

  it('does not load or call the tokenizer far below every threshold: the byte bound is the figure', async () => {
    const { count, texts } = await recordingCounter();
    const history = [message('user', 'Hello there')];
    const usage = await measureContext({ system: 'Be brief.', tools: [searchTool], messages: history }, settings(), { countTokens: count });
    expect(texts).toEqual([]);
    const bytes = tokenUpperBound('Be brief.') + tokenUpperBound(JSON.stringify(searchTool)) + tokenUpperBound('Hello there') + FRAMING;
    expect(usage).toMatchObject({ bounded: true, total: bytes, estimated: bytes, fromProvider: 0 });
  });
});

describe('each request of the agent loop is measured (real SDK, local wire server)', () => {
  const { server, createTestLegion } = useLlmServer();
  let test: TestLegion | undefined;

  it("reports the provider's usage for what was sent and estimates the tool results appended since", async () => {
    const participant = {
      ...agentParticipant('reviewer', { tools: ['read_note'], delegation: 'none' }),
      model: { provider: 'anthropic', model: 'claude-opus-4-5-20251101', baseURL: server.anthropicURL },
    } as ParticipantInput;
    test = createTestLegion({ participants: [userParticipant(), participant], entryAgent: 'reviewer', env: keyEnv(server.anthropicURL) });
    test.legion.tools.register(
      defineTool({
        name: 'read_note',
        description: 'Reads a note',
        effect: 'read',
        inputSchema: z.object({ name: z.string() }),
        async execute(input) {
          return { status: 'success', data: `note ${input.name}: the build is green` };
        },
      }),
    );
    server.mock.on(
      { model: 'claude-opus-4-5-20251101', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_1', name: 'read_note', arguments: '{"name":"a"}' }], usage: { input_tokens: 1_000, output_tokens: 40 } },
    );
    server.mock.on(
      { model: 'claude-opus-4-5-20251101', toolCallId: 'toolu_1' },
      { toolCalls: [{ id: 'toolu_2', name: 'read_note', arguments: '{"name":"b"}' }], usage: { input_tokens: 1_100, output_tokens: 30 } },
    );
    server.mock.on(
      { model: 'claude-opus-4-5-20251101', toolCallId: 'toolu_2' },
      { content: 'All green.', usage: { input_tokens: 1_200, output_tokens: 5 } },
    );
    const measured: Array<LegionEvents['context:usage']> = [];
    test.legion.events.on('context:usage', (event) => measured.push(event));
    const session = await test.legion.sessions.create();

    expect(await test.legion.send(session, 'Check the notes')).toMatchObject({ status: 'success', reply: 'All green.' });

    expect(measured.map((event) => event.participantId)).toEqual(['reviewer', 'reviewer', 'reviewer']);
    const [first, second, third] = measured.map((event) => event.usage);
    // The first request: nothing reported yet, all of it estimated (far below a 200k window: by its bytes).
    expect(first).toMatchObject({ fromProvider: 0, bounded: true, limit: 184_000 });
    expect(first!.estimated).toBe(first!.total);
    expect(first!.system + first!.tools + first!.messages).toBe(first!.total);
    // Then: what the provider said it read and wrote, and only the tool result since, by its bytes.
    const stored = await session.conversation({ initiator: 'user', responder: 'reviewer' }).history();
    const bytesOf = (index: number) => {
      const block = stored[index]!.content[0]!;
      return tokenUpperBound(block.type === 'tool_result' ? block.content : '') + FRAMING;
    };
    expect(stored.map((entry) => entry.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(second).toMatchObject({ fromProvider: 1_040, estimated: bytesOf(2), total: 1_040 + bytesOf(2), bounded: true });
    expect(third).toMatchObject({ fromProvider: 1_130, estimated: bytesOf(4), total: 1_130 + bytesOf(4), bounded: true });
  });
});
