import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ModelConfig, ParticipantInput } from '../../team/collective/participant.js';
import type { Session } from '../../engine/conversation/Session.js';
import type { LegionEvents } from '../../kernel/events/event-types.js';
import { agentParticipant, userParticipant, type TestLegion } from '../../testing/index.js';
import { defineTool, toolDefinition } from '../../tools/tool.js';
import { closedPortURL, keyEnv } from './__fixtures__/llm-server.js';
import { useLlmServer } from './__fixtures__/use-llm-server.js';
import { AnthropicProvider } from './anthropic/AnthropicProvider.js';

/** One line of a conversation file, as written. */
type Entry =
  | { kind: 'header' }
  | { kind: 'note'; level: string; code?: string; text: string }
  | { kind: 'message'; role: 'user' | 'assistant'; content: Array<Record<string, unknown>>; usage?: unknown; model?: string };

describe('agent loops on real provider SDKs against a local model server', () => {
  const { server, createTestLegion } = useLlmServer();
  let test: TestLegion | undefined;

  const claude = (extra: Partial<ModelConfig> = {}): ModelConfig => ({
    provider: 'anthropic',
    model: 'claude-test',
    baseURL: server.anthropicURL,
    ...extra,
  });
  const gpt = (extra: Partial<ModelConfig> = {}): ModelConfig => ({
    provider: 'openai',
    model: 'gpt-test',
    baseURL: server.openaiURL,
    ...extra,
  });
  // Whole tool schemas, whatever the test models' (unknown) windows: these tests are about the wire translation of every field.
  const agent = (id: string, model: ModelConfig, extra: Parameters<typeof agentParticipant>[1] = {}): ParticipantInput =>
    ({ ...agentParticipant(id, { context: { toolSchemas: 'full' }, ...extra }), model }) as ParticipantInput;

  /** A word counter whose every run is remembered. */
  function registerWordCount(legion: TestLegion['legion']): Array<{ text: string }> {
    const runs: Array<{ text: string }> = [];
    legion.tools.register(
      defineTool({
        name: 'word_count',
        description: 'Counts the words of a text',
        inputSchema: z.object({ text: z.string() }),
        effect: 'read',
        async execute(input) {
          runs.push(input);
          return { status: 'success', data: { words: input.text.split(/\s+/).length } };
        },
      }),
    );
    return runs;
  }

  function readLog(session: Session, conversationId: string): Entry[] {
    return readFileSync(`${test!.root}/.legion/sessions/${session.id}/conversations/${conversationId}.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Entry);
  }

  const shape = (entries: Entry[]) => entries.map((entry) => (entry.kind === 'message' ? entry.role : entry.kind));
  const messages = (entries: Entry[]) => entries.filter((entry): entry is Extract<Entry, { kind: 'message' }> => entry.kind === 'message');

  /** Every tool_use is answered by a tool_result in the message right after it. */
  function expectEveryToolUseAnswered(entries: Entry[]): void {
    const logged = messages(entries);
    logged.forEach((entry, index) => {
      const ids = entry.content.filter((block) => block.type === 'tool_use').map((block) => block.id);
      if (ids.length === 0) return;
      const next = logged[index + 1];
      expect(next?.role).toBe('user');
      expect(next!.content.filter((block) => block.type === 'tool_result').map((block) => block.toolUseId)).toEqual(ids);
    });
  }

  function collectEvents<Name extends keyof LegionEvents>(name: Name): Array<LegionEvents[Name]> {
    const seen: Array<LegionEvents[Name]> = [];
    test!.legion.events.on(name, (event) => seen.push(event));
    return seen;
  }

  it('runs user → Anthropic coordinator → communicate → OpenAI developer → tool, with each wire body translated', async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        agent('coordinator', claude(), { systemPrompt: 'You coordinate.', tools: ['communicate'], delegation: ['developer'] }),
        agent('developer', gpt({ maxTokens: 512 }), {
          systemPrompt: 'You write code.',
          useFor: 'writing code',
          tools: ['word_count'],
          delegation: 'none',
        }),
      ],
      entryAgent: 'coordinator',
      env: keyEnv(server.anthropicURL),
    });
    const runs = registerWordCount(test.legion);
    const delegation = { to: 'developer', message: 'Write GET /health and count the words of its summary' };
    server.mock.on(
      { model: 'claude-test', hasToolResult: false },
      {
        toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify(delegation) }],
        usage: { input_tokens: 250, output_tokens: 40 },
      },
    );
    server.mock.on(
      { model: 'claude-test', hasToolResult: true },
      { content: 'The developer added /health.', usage: { input_tokens: 300, output_tokens: 10 } },
      { chunkSize: 5 },
    );
    server.mock.on(
      { model: 'gpt-test', hasToolResult: false },
      {
        toolCalls: [{ id: 'call_count', name: 'word_count', arguments: '{"text":"GET /health returns 200"}' }],
        usage: { prompt_tokens: 120, completion_tokens: 20 },
      },
    );
    server.mock.on(
      { model: 'gpt-test', hasToolResult: true },
      { content: 'Done: /health returns 200 (4 words)', usage: { prompt_tokens: 150, completion_tokens: 12 } },
      { chunkSize: 5 },
    );
    const deltas = collectEvents('text:delta');
    const usage = collectEvents('usage:report');
    const session = await test.legion.sessions.create();

    const result = await test.legion.send(session, 'Add a health check');

    expect(result).toMatchObject({ status: 'success', reply: 'The developer added /health.', conversationId: 'user__coordinator' });
    expect(runs).toEqual([{ text: 'GET /health returns 200' }]);

    const communicate = toolDefinition(test.legion.tools.get('communicate')!);
    const [coordinatorFirst, coordinatorSecond, ...extraAnthropic] = server.anthropicBodies();
    expect(extraAnthropic).toEqual([]);
    expect(coordinatorFirst).toEqual({
      model: 'claude-test',
      max_tokens: 8192,
      system: expect.stringMatching(/^You coordinate\.\n[\s\S]*- developer \(developer, agent\): writing code/),
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Add a health check' }] }],
      tools: [{ name: 'communicate', description: communicate.description, input_schema: { ...communicate.parameters, type: 'object' } }],
      stream: true,
    });
    expect(coordinatorSecond!.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Add a health check' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_delegate', name: 'communicate', input: delegation }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_delegate', content: 'Done: /health returns 200 (4 words)' }] },
    ]);

    const [developerFirst, developerSecond, ...extraOpenAI] = server.openaiBodies();
    expect(extraOpenAI).toEqual([]);
    expect(developerFirst).toEqual({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You write code.' },
        { role: 'user', content: delegation.message },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'word_count',
            description: 'Counts the words of a text',
            parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
          },
        },
      ],
      max_completion_tokens: 512,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(developerSecond!.messages).toEqual([
      { role: 'system', content: 'You write code.' },
      { role: 'user', content: delegation.message },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_count', type: 'function', function: { name: 'word_count', arguments: '{"text":"GET /health returns 200"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_count', content: '{"words":4}' },
    ]);

    // Usage is recorded on each assistant message in the log, with the model that produced it.
    const coordinatorLog = readLog(session, 'user__coordinator');
    expect(shape(coordinatorLog)).toEqual(['header', 'user', 'assistant', 'user', 'assistant']);
    expect(
      messages(coordinatorLog)
        .filter((entry) => entry.role === 'assistant')
        .map(({ usage: used, model }) => ({ usage: used, model })),
    ).toEqual([
      { usage: { inputTokens: 250, outputTokens: 40 }, model: 'anthropic/claude-test' },
      { usage: { inputTokens: 300, outputTokens: 10 }, model: 'anthropic/claude-test' },
    ]);
    const developerLog = readLog(session, 'coordinator__developer');
    expect(shape(developerLog)).toEqual(['header', 'user', 'assistant', 'user', 'assistant']);
    expect(
      messages(developerLog)
        .filter((entry) => entry.role === 'assistant')
        .map(({ usage: used, model }) => ({ usage: used, model })),
    ).toEqual([
      { usage: { inputTokens: 120, outputTokens: 20 }, model: 'openai/gpt-test' },
      { usage: { inputTokens: 150, outputTokens: 12 }, model: 'openai/gpt-test' },
    ]);
    expectEveryToolUseAnswered(coordinatorLog);
    expectEveryToolUseAnswered(developerLog);
    expect(usage.map((event) => `${event.participantId}:${event.usage.inputTokens}+${event.usage.outputTokens}`)).toEqual([
      'coordinator:250+40',
      'developer:120+20',
      'developer:150+12',
      'coordinator:300+10',
    ]);

    // Text reaches the event bus as it streams, in several deltas per reply.
    const streamed = (id: string) => deltas.filter((event) => event.participantId === id).map((event) => event.text);
    expect(streamed('developer').length).toBeGreaterThan(1);
    expect(streamed('developer').join('')).toBe('Done: /health returns 200 (4 words)');
    expect(streamed('coordinator').length).toBeGreaterThan(1);
    expect(streamed('coordinator').join('')).toBe('The developer added /health.');
    expect(deltas.find((event) => event.participantId === 'developer')).toMatchObject({
      conversationId: 'coordinator__developer',
      sessionId: session.id,
    });
  });

  it('streams text:delta to a listener that subscribes in the middle of a turn nobody listened to when it began', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agent('writer', claude(), { tools: ['subscribe_ui'], delegation: 'none' })],
      entryAgent: 'writer',
      env: keyEnv(server.anthropicURL),
    });
    const legion = test.legion;
    const deltas: string[] = [];
    // A UI that connects while the agent works: it subscribes during the turn's tool step.
    legion.tools.register(
      defineTool({
        name: 'subscribe_ui',
        description: 'Connects a UI',
        inputSchema: z.object({}),
        effect: 'read',
        async execute() {
          legion.events.on('text:delta', (event) => deltas.push(event.text));
          return { status: 'success', data: 'connected' };
        },
      }),
    );
    server.mock.on(
      { model: 'claude-test', hasToolResult: false },
      { content: 'Connecting.', toolCalls: [{ id: 'toolu_ui', name: 'subscribe_ui', arguments: '{}' }] },
      { chunkSize: 4 },
    );
    server.mock.on({ model: 'claude-test', hasToolResult: true }, { content: 'Streamed to whoever listens now.' }, { chunkSize: 5 });
    expect(legion.events.hasListeners('text:delta')).toBe(false);

    const result = await legion.send(await legion.sessions.create(), 'write');

    expect(result).toMatchObject({ status: 'success', reply: 'Streamed to whoever listens now.' });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Streamed to whoever listens now.');
  });

  it('sends several tool results of one Anthropic response back in order, a failed one flagged is_error', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agent('counter', claude(), { tools: ['word_count'], delegation: 'none' })],
      env: keyEnv(server.anthropicURL),
    });
    const runs = registerWordCount(test.legion);
    server.mock.on(
      { model: 'claude-test', hasToolResult: false },
      {
        content: 'Counting both.',
        toolCalls: [
          { id: 'toolu_good', name: 'word_count', arguments: '{"text":"one two three"}' },
          { id: 'toolu_bad', name: 'word_count', arguments: '{"text":42}' },
        ],
      },
    );
    server.mock.on({ model: 'claude-test', hasToolResult: true }, { content: 'Three words; the second input was not text.' });

    const result = await test.legion.send(await test.legion.sessions.create(), 'count two things');

    expect(result).toMatchObject({ status: 'success', reply: 'Three words; the second input was not text.' });
    expect(runs).toEqual([{ text: 'one two three' }]);
    const [, second] = server.anthropicBodies();
    expect(second!.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'count two things' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Counting both.' },
          { type: 'tool_use', id: 'toolu_good', name: 'word_count', input: { text: 'one two three' } },
          { type: 'tool_use', id: 'toolu_bad', name: 'word_count', input: { text: 42 } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_good', content: '{"words":3}' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_bad',
            content: expect.stringMatching(/^Invalid input for word_count: "text"/),
            is_error: true,
          },
        ],
      },
    ]);
  });

  it('answers malformed tool-call JSON from an OpenAI model with an error result it can correct', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agent('developer', gpt(), { tools: ['word_count'], delegation: 'none' })],
      env: keyEnv(server.anthropicURL),
    });
    const runs = registerWordCount(test.legion);
    server.mock.on(
      { model: 'gpt-test', hasToolResult: false },
      { toolCalls: [{ id: 'call_bad', name: 'word_count', arguments: '{"text": "a b' }] },
    );
    server.mock.on({ toolCallId: 'call_bad' }, { toolCalls: [{ id: 'call_fixed', name: 'word_count', arguments: '{"text": "a b"}' }] });
    server.mock.on({ toolCallId: 'call_fixed' }, { content: 'Two words.' });
    const session = await test.legion.sessions.create();

    const result = await test.legion.send(session, 'count "a b"');

    expect(result).toMatchObject({ status: 'success', reply: 'Two words.' });
    expect(runs).toEqual([{ text: 'a b' }]);
    const bodies = server.openaiBodies();
    expect(bodies).toHaveLength(3);
    expect((bodies[1]!.messages as unknown[]).slice(-2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_bad', type: 'function', function: { name: 'word_count', arguments: '{}' } }],
      },
      {
        role: 'tool',
        tool_call_id: 'call_bad',
        content: expect.stringMatching(/^Error: Your arguments were not valid JSON \(.+\): \{"text": "a b\. Call the tool again/),
      },
    ]);
    expect((bodies[2]!.messages as unknown[]).at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_fixed', content: '{"words":2}' });
    const log = readLog(session, 'user__developer');
    expect(shape(log)).toEqual(['header', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expectEveryToolUseAnswered(log);
    expect(messages(log)[2]!.content).toEqual([
      { type: 'tool_result', toolUseId: 'call_bad', content: expect.stringContaining('not valid JSON'), isError: true },
    ]);
  });

  it('ends the turn with an error when the stream breaks after text arrived, leaving no half-written reply', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agent('solo', claude(), { delegation: 'none' })],
      env: keyEnv(server.anthropicURL),
    });
    server.mock.on(
      { userMessage: 'first', sequenceIndex: 0 },
      { content: 'a reply that will be cut off midway' },
      { chunkSize: 2, latency: 2, truncateAfterChunks: 5 },
    );
    server.mock.onMessage('second', { content: 'Answering both.' });
    const deltas = collectEvents('text:delta');
    const session = await test.legion.sessions.create();

    const broken = await test.legion.send(session, 'first');

    expect(broken).toMatchObject({ status: 'error', code: 'provider_stream_interrupted' });
    expect(broken.status === 'error' && broken.error).toContain(
      "solo's model call failed: anthropic (claude-test): the response broke off mid-stream",
    );
    expect(deltas.length).toBeGreaterThan(0);
    expect(server.anthropicBodies()).toHaveLength(1);
    const afterBreak = readLog(session, 'user__solo');
    // The turn's ending closes it, in the agent's place: no half reply.
    expect(shape(afterBreak)).toEqual(['header', 'user', 'assistant']);
    expect(afterBreak[2]).toMatchObject({ role: 'assistant', ending: { status: 'failed', code: 'provider_stream_interrupted' } });

    // The conversation goes on: the next message is a turn of its own, after the model is told the first failed (never merged with it).
    const next = await test.legion.send(session, 'second');

    expect(next).toMatchObject({ status: 'success', reply: 'Answering both.' });
    const sent = server.anthropicBodies()[1]!.messages as Array<{ role: string; content: Array<{ type: string; text?: string }> }>;
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent[0]!.content).toEqual([{ type: 'text', text: 'first' }]);
    expect(sent[1]!.content[0]!.text).toMatch(/^\[This turn failed before it finished \(provider_stream_interrupted: /);
    expect(sent[2]!.content).toEqual([{ type: 'text', text: 'second' }]);
    expect(shape(readLog(session, 'user__solo'))).toEqual(['header', 'user', 'assistant', 'user', 'assistant']);
  });

  it('retries a stream that broke before its first part, and the turn logs one reply', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agent('solo', gpt(), { delegation: 'none' })],
      env: keyEnv(server.anthropicURL),
    });
    server.mock.on(
      { userMessage: 'hello', sequenceIndex: 0 },
      { toolCalls: [{ name: 'word_count', arguments: '{"text":"x"}' }] },
      { truncateAfterChunks: 2, latency: 2 },
    );
    server.mock.onMessage('hello', { content: 'Hello!' });
    const session = await test.legion.sessions.create();

    expect(await test.legion.send(session, 'hello')).toMatchObject({ status: 'success', reply: 'Hello!' });
    expect(server.openaiBodies()).toHaveLength(2);
    expect(shape(readLog(session, 'user__solo'))).toEqual(['header', 'user', 'assistant']);
  });

  it('cancels a delegated turn during a slow response: no partial reply, every tool_use answered, and the conversation goes on', async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        agent('coordinator', claude(), { tools: ['communicate'], delegation: ['developer'] }),
        agent('developer', gpt(), { tools: 'none', delegation: 'none' }),
      ],
      entryAgent: 'coordinator',
      env: keyEnv(server.anthropicURL),
    });
    server.mock.on(
      { model: 'claude-test', hasToolResult: false, sequenceIndex: 0 },
      { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: '{"to":"developer","message":"Write it all"}' }] },
    );
    server.mock.on(
      { model: 'gpt-test' },
      { content: 'A long and slow answer that will not be finished before the user gives up.' },
      { chunkSize: 2, latency: 100 },
    );
    server.mock.onMessage('still there?', { content: 'Yes, the delegation was cancelled.' });
    const controller = new AbortController();
    test.legion.events.on('text:delta', (event) => {
      if (event.participantId === 'developer') controller.abort();
    });
    const developerEnded = new Promise<LegionEvents['turn:end']>((resolve) => {
      test!.legion.events.on('turn:end', (event) => {
        if (event.participantId === 'developer') resolve(event);
      });
    });
    const session = await test.legion.sessions.create();

    const result = await test.legion.send(session, 'Build everything', { signal: controller.signal });

    expect(result).toMatchObject({ status: 'error', code: 'cancelled' });
    expect(await developerEnded).toMatchObject({ status: 'error', error: expect.stringContaining('cancelled') });
    const developerLog = readLog(session, 'coordinator__developer');
    expect(shape(developerLog)).toEqual(['header', 'user', 'assistant']);
    expect(developerLog[2]).toMatchObject({ ending: { status: 'cancelled', code: 'cancelled' } });
    const coordinatorLog = readLog(session, 'user__coordinator');
    expect(shape(coordinatorLog)).toEqual(['header', 'user', 'assistant', 'user', 'assistant']);
    expect(coordinatorLog.at(-1)).toMatchObject({ ending: { status: 'cancelled' } });
    expectEveryToolUseAnswered(coordinatorLog);
    expect(messages(coordinatorLog)[2]!.content).toEqual([
      { type: 'tool_result', toolUseId: 'toolu_delegate', content: expect.stringContaining('cancelled'), isError: true },
    ]);
    expect(server.anthropicBodies()).toHaveLength(1);
    expect(server.openaiBodies()).toHaveLength(1);

    const next = await test.legion.send(session, 'still there?');

    expect(next).toMatchObject({ status: 'success', reply: 'Yes, the delegation was cancelled.' });
    expect(server.anthropicBodies()[1]!.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Build everything' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_delegate', name: 'communicate', input: { to: 'developer', message: 'Write it all' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_delegate', content: expect.stringContaining('cancelled'), is_error: true }],
      },
      { role: 'assistant', content: [{ type: 'text', text: expect.stringContaining('[This turn was cancelled before it finished.') }] },
      { role: 'user', content: [{ type: 'text', text: 'still there?' }] },
    ]);
  });

  it('ends the turn with an error naming provider, model and fix when the key is rejected, and logs no reply', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agent('solo', claude(), { delegation: 'none' })],
      env: keyEnv(server.anthropicURL),
    });
    server.mock.on({ model: 'claude-test' }, { error: { message: 'invalid x-api-key', type: 'authentication_error' }, status: 401 });
    const session = await test.legion.sessions.create();

    const result = await test.legion.send(session, 'hello');

    expect(result).toMatchObject({ status: 'error', code: 'provider_auth' });
    expect(result.status === 'error' && result.error).toMatch(
      /^solo's model call failed: anthropic \(claude-test\): the API key was rejected \(401.*Check ANTHROPIC_API_KEY/,
    );
    expect(server.anthropicBodies()).toHaveLength(1);
    expect(shape(readLog(session, 'user__solo'))).toEqual(['header', 'user', 'assistant']);
  });

  it("gives a delegate's unknown-model error to the caller as a tool result it can act on", async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        agent('coordinator', claude(), { tools: ['communicate'], delegation: ['developer'] }),
        agent('developer', gpt({ model: 'gpt-nope' }), { tools: 'none', delegation: 'none' }),
      ],
      entryAgent: 'coordinator',
      env: keyEnv(server.anthropicURL),
    });
    server.mock.on(
      { model: 'claude-test', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: '{"to":"developer","message":"Do it"}' }] },
    );
    server.mock.on({ model: 'claude-test', hasToolResult: true }, { content: 'The developer is misconfigured; I will tell the user.' });
    server.mock.on(
      { model: 'gpt-nope' },
      { error: { message: 'The model `gpt-nope` does not exist', type: 'invalid_request_error', code: 'model_not_found' }, status: 404 },
    );
    const session = await test.legion.sessions.create();

    const result = await test.legion.send(session, 'go');

    expect(result).toMatchObject({ status: 'success', reply: 'The developer is misconfigured; I will tell the user.' });
    const [, second] = server.anthropicBodies();
    expect((second!.messages as Array<{ content: unknown }>).at(-1)!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_delegate',
        content: expect.stringMatching(
          /^developer could not answer: developer's model call failed: openai \(gpt-nope\): model or endpoint not found .*Check the model name "gpt-nope"/,
        ),
        is_error: true,
      },
    ]);
    expect(shape(readLog(session, 'coordinator__developer'))).toEqual(['header', 'user', 'assistant']);
    expectEveryToolUseAnswered(readLog(session, 'user__coordinator'));
  });

  it('ends the turn with an error naming the endpoint when it is unreachable', async () => {
    const nowhere = await closedPortURL();
    const model = claude({ baseURL: nowhere });
    test = createTestLegion({
      participants: [userParticipant(), agent('solo', model, { delegation: 'none' })],
      env: keyEnv(server.anthropicURL),
    });
    // Retries would only make this test slow: settings as the global config would give them.
    test.legion.providers.useFor('solo', new AnthropicProvider(model, { maxRetries: 0 }, keyEnv(nowhere)));
    const session = await test.legion.sessions.create();

    const result = await test.legion.send(session, 'hello');

    expect(result).toMatchObject({ status: 'error', code: 'provider_unreachable' });
    expect(result.status === 'error' && result.error).toContain(`anthropic (claude-test): cannot connect to ${nowhere}`);
    expect(result.status === 'error' && result.error).toContain('model.baseURL');
    expect(shape(readLog(session, 'user__solo'))).toEqual(['header', 'user', 'assistant']);
  });

  it('ends the turn with an error naming the variable to set when no key is configured', async () => {
    test = createTestLegion({ participants: [userParticipant(), agent('solo', claude(), { delegation: 'none' })], env: {} });
    const session = await test.legion.sessions.create();

    const result = await test.legion.send(session, 'hello');

    expect(result).toMatchObject({ status: 'error', code: 'provider_no_key' });
    expect(result.status === 'error' && result.error).toContain(
      'anthropic (claude-test): no API key is set. Set ANTHROPIC_API_KEY in the environment',
    );
    expect(server.recorder.requests).toHaveLength(0);
    expect(shape(readLog(session, 'user__solo'))).toEqual(['header', 'user', 'assistant']);
  });
});
