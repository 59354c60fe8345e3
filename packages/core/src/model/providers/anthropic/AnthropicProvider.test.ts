import type { IncomingHttpHeaders } from 'node:http';
import type { ModelConfig } from '../../../team/collective/participant.js';
import { ProviderError } from '../../../kernel/errors.js';
import { caught, closedPortURL, collect, message, startLlmServer, keyEnv, userText, type LlmServer } from '../__fixtures__/llm-server.js';
import { generate, type ModelRequest, type StreamPart } from '../llm-provider.js';
import type { ProviderSettings } from '../ProviderFactory.js';
import { AnthropicProvider } from './AnthropicProvider.js';

const wordCountTool = {
  name: 'word_count',
  description: 'Counts the words of a text',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
};

/** SDK versions differ in where the key goes (`x-api-key`, or `Authorization: Bearer`). */
function credentialOf(headers: IncomingHttpHeaders): string | undefined {
  const key = headers['x-api-key'];
  return typeof key === 'string' ? key : headers.authorization?.replace(/^Bearer /, '');
}

function request(text: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: 'You are terse.', messages: [userText(text)], tools: [], ...extra };
}

describe('AnthropicProvider through @anthropic-ai/sdk against a local Messages API', () => {
  let server: LlmServer;
  beforeAll(async () => {
    server = await startLlmServer();
  });
  afterAll(() => server.close());
  afterEach(() => server.reset());

  const provider = (settings: ProviderSettings = {}, model: Partial<ModelConfig> = {}, env = keyEnv(server.anthropicURL)) =>
    new AnthropicProvider({ provider: 'anthropic', model: 'claude-test', baseURL: server.anthropicURL, ...model }, settings, env);

  it('streams text as deltas, then usage and the stop reason, from the exact request body it sent', async () => {
    server.mock.onMessage(
      'hello',
      { content: 'Hello there, how can I help?', usage: { input_tokens: 21, output_tokens: 9 } },
      { chunkSize: 6 },
    );

    const parts = await collect(provider().stream(request('hello')));

    const deltas = parts.filter((part) => part.type === 'text-delta').map((part) => part.text);
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe('Hello there, how can I help?');
    expect(parts.slice(deltas.length)).toEqual([
      { type: 'usage', usage: { inputTokens: 21, outputTokens: 9 } },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(server.recorder.requests).toHaveLength(1);
    const [sent] = server.recorder.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/messages' });
    expect(credentialOf(sent!.headers)).toBe('test-anthropic-key');
    expect(sent!.headers['anthropic-version']).toBeDefined();
    expect(sent!.body).toEqual({
      model: 'claude-test',
      max_tokens: 8192,
      system: 'You are terse.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
      stream: true,
    });
  });

  it('sends tool schemas, max_tokens and temperature as the Messages API names them', async () => {
    server.mock.onMessage('count', { content: 'ok' });

    await collect(provider().stream(request('count', { tools: [wordCountTool], maxTokens: 300, temperature: 0.2 })));

    expect(server.anthropicBodies()[0]).toEqual({
      model: 'claude-test',
      max_tokens: 300,
      system: 'You are terse.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'count' }] }],
      tools: [
        {
          name: 'word_count',
          description: 'Counts the words of a text',
          input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
        },
      ],
      temperature: 0.2,
      stream: true,
    });
  });

  it('yields one tool call with its input parsed from the streamed JSON', async () => {
    server.mock.onMessage(
      'count',
      { toolCalls: [{ id: 'toolu_one', name: 'word_count', arguments: '{"text":"three little words"}' }] },
      { chunkSize: 5 },
    );

    const parts = await collect(provider().stream(request('count', { tools: [wordCountTool] })));

    expect(parts.filter((part) => part.type === 'tool-call')).toEqual([
      { type: 'tool-call', id: 'toolu_one', name: 'word_count', input: { text: 'three little words' } },
    ]);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'tool_use' });
  });

  it('keeps text and several tool calls of one response in order', async () => {
    server.mock.onMessage('both', {
      content: 'Counting both.',
      toolCalls: [
        { id: 'toolu_a', name: 'word_count', arguments: '{"text":"one two"}' },
        { id: 'toolu_b', name: 'word_count', arguments: '{"text":"three"}' },
      ],
    });

    const response = await generate(provider(), request('both', { tools: [wordCountTool] }));

    expect(response.content).toEqual([
      { type: 'text', text: 'Counting both.' },
      { type: 'tool_use', id: 'toolu_a', name: 'word_count', input: { text: 'one two' } },
      { type: 'tool_use', id: 'toolu_b', name: 'word_count', input: { text: 'three' } },
    ]);
    expect(response.finishReason).toBe('tool_use');
    expect(response.inputErrors.size).toBe(0);
  });

  it('sends a history with tool calls and tool results (errors flagged) as tool_use and tool_result blocks', async () => {
    server.mock.onMessage('count these', { content: 'The first has 2 words; the second failed.' });
    const history = [
      userText('count these'),
      message('assistant', [
        { type: 'text', text: 'Counting.' },
        { type: 'tool_use', id: 'toolu_a', name: 'word_count', input: { text: 'one two' } },
        { type: 'tool_use', id: 'toolu_b', name: 'word_count', input: { text: '' } },
      ]),
      message('user', [
        { type: 'tool_result', toolUseId: 'toolu_a', content: '{"words":2}' },
        { type: 'tool_result', toolUseId: 'toolu_b', content: 'Invalid input for word_count: "text" is empty.', isError: true },
      ]),
    ];

    const response = await generate(provider(), { system: 'You count.', messages: history, tools: [wordCountTool] });

    expect(response.content).toEqual([{ type: 'text', text: 'The first has 2 words; the second failed.' }]);
    expect(server.anthropicBodies()[0]!.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'count these' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Counting.' },
          { type: 'tool_use', id: 'toolu_a', name: 'word_count', input: { text: 'one two' } },
          { type: 'tool_use', id: 'toolu_b', name: 'word_count', input: { text: '' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: '{"words":2}' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: 'Invalid input for word_count: "text" is empty.', is_error: true },
        ],
      },
    ]);
  });

  it('maps the stop reasons max_tokens and refusal', async () => {
    server.mock.onMessage('long', { content: 'This answer was cut', finishReason: 'length' });
    server.mock.onMessage('forbidden', { content: '', finishReason: 'refusal' });

    expect((await generate(provider(), request('long'))).finishReason).toBe('max_tokens');
    expect((await generate(provider(), request('forbidden'))).finishReason).toBe('refusal');
  });

  it('retries a stream that broke before yielding anything, and the second attempt answers', async () => {
    // message_start and the tool_use block start arrive, then the connection drops: no part was yielded yet.
    server.mock.on(
      { userMessage: 'flaky', sequenceIndex: 0 },
      { toolCalls: [{ name: 'word_count', arguments: '{"text":"x"}' }] },
      { truncateAfterChunks: 2, latency: 2 },
    );
    server.mock.onMessage('flaky', { content: 'second time lucky' });

    const parts = await collect(provider().stream(request('flaky')));

    expect(
      parts
        .filter((part) => part.type === 'text-delta')
        .map((part) => part.text)
        .join(''),
    ).toBe('second time lucky');
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
    expect(server.anthropicBodies()).toHaveLength(2);
    expect(server.anthropicBodies()[1]).toEqual(server.anthropicBodies()[0]);
    // A fresh request from our stream retry, not the SDK's own retry of a failed request.
    expect(server.recorder.requests.map((entry) => entry.headers['x-stainless-retry-count'])).toEqual(['0', '0']);
  });

  it("retries a connection dropped before the response began (Legion's loop: the SDK's own retries are off)", async () => {
    server.mock.on({ userMessage: 'flaky', sequenceIndex: 0 }, { content: 'never seen' }, { truncateAfterChunks: 1 });
    server.mock.onMessage('flaky', { content: 'second time lucky' });

    expect((await generate(provider(), request('flaky'))).content).toEqual([{ type: 'text', text: 'second time lucky' }]);
    expect(server.recorder.requests.map((entry) => entry.headers['x-stainless-retry-count'])).toEqual(['0', '0']);
  });

  it('does not retry a stream that broke after yielding text: the caller gets the error, and generate() no half response', async () => {
    server.mock.onMessage('fragile', { content: 'abcdefghijklmnopqrstuvwxyz' }, { chunkSize: 2, latency: 2, truncateAfterChunks: 5 });
    const seen: string[] = [];

    const error = await caught(() => generate(provider(), request('fragile'), { onTextDelta: (text) => seen.push(text) }));

    expect(error).toBeInstanceOf(ProviderError);
    expect(error.code).toBe('provider_stream_interrupted');
    expect(error.message).toMatch(/^anthropic \(claude-test\): the response broke off mid-stream/);
    expect(seen.join('')).toMatch(/^ab/);
    expect(server.anthropicBodies()).toHaveLength(1);
  });

  it('retries 5xx and 429 responses (the SDK does, honouring retry-after) and then answers', async () => {
    server.mock.nextRequestError(500, { message: 'internal', type: 'api_error' });
    server.mock.onMessage('busy', { content: 'finally' });
    expect((await generate(provider(), request('busy'))).content).toEqual([{ type: 'text', text: 'finally' }]);
    expect(server.recorder.requests.map((entry) => entry.path)).toEqual(['/v1/messages', '/v1/messages']);

    server.recorder.requests.length = 0;
    server.mock.nextRequestError(429, { message: 'slow down', type: 'rate_limit_error' });
    expect((await generate(provider(), request('busy'))).content).toEqual([{ type: 'text', text: 'finally' }]);
    expect(server.anthropicBodies()).toHaveLength(2);
    expect(server.anthropicBodies()[1]).toEqual(server.anthropicBodies()[0]);
  });

  it("gives up after maxRetries on a failing service, without retrying the SDK's retries again", async () => {
    server.mock.onMessage('down', { error: { message: 'overloaded', type: 'overloaded_error' }, status: 503 });

    const error = await caught(() => generate(provider({ maxRetries: 1 }), request('down')));

    expect(error).toMatchObject({ code: 'provider_unavailable' });
    expect(error.message).toContain('anthropic (claude-test): the service failed (503');
    expect(server.anthropicBodies()).toHaveLength(2);
  });

  it('reports a rejected key once, naming the provider, the model and the variable to fix', async () => {
    server.mock.onMessage('hi', { error: { message: 'invalid x-api-key', type: 'authentication_error' }, status: 401 });

    const error = await caught(() => generate(provider(), request('hi')));

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: 'provider_auth', provider: 'anthropic', model: 'claude-test' });
    expect(error.message).toContain('anthropic (claude-test): the API key was rejected (401');
    expect(error.message).toContain('Check ANTHROPIC_API_KEY');
    expect(server.anthropicBodies()).toHaveLength(1);
  });

  it('reports an unknown model, naming it and where to change it', async () => {
    server.mock.onMessage('hi', { error: { message: 'model: claude-nope', type: 'not_found_error' }, status: 404 });

    const error = await caught(() => generate(provider({}, { model: 'claude-nope' }), request('hi')));

    expect(error).toMatchObject({ code: 'provider_model_not_found', model: 'claude-nope' });
    expect(error.message).toContain(`anthropic (claude-nope): model or endpoint not found at ${server.anthropicURL}`);
    expect(error.message).toContain('Check the model name "claude-nope" in the participant\'s "model" setting');
    expect(server.anthropicBodies()).toHaveLength(1);
  });

  it('reports a refused connection at once, with its URL and the settings to check', async () => {
    const nowhere = await closedPortURL();
    const retries: unknown[] = [];

    // With the default retries: a closed port is not retried (the error would only come later, said once per retry).
    const error = await caught(() =>
      generate(provider({}, { baseURL: nowhere }, keyEnv(nowhere)), request('hi'), { onRetry: (retry) => retries.push(retry) }),
    );

    expect(error).toMatchObject({ code: 'provider_unreachable' });
    expect(error.message).toContain(`anthropic (claude-test): cannot connect to ${nowhere}: connection refused`);
    expect(error.message).toContain('Start the model server, or correct the base URL (model.baseURL or ANTHROPIC_BASE_URL)');
    expect(retries).toEqual([]);
  });

  it('refuses to start without a key, naming the variable to set', () => {
    expect(() => provider({}, {}, {})).toThrow(ProviderError);
    expect(() => provider({}, {}, {})).toThrow(/anthropic \(claude-test\): no API key is set\. Set ANTHROPIC_API_KEY in the environment/);
    expect(() => provider({}, {}, { ANTHROPIC_API_KEY: '' })).toThrow(expect.objectContaining({ code: 'provider_no_key' }));
  });

  it('takes the key from the settings and the endpoint from ANTHROPIC_BASE_URL', async () => {
    server.mock.onMessage('hello', { content: 'hi' });
    const fromEnv = new AnthropicProvider(
      { provider: 'anthropic', model: 'claude-test' },
      { apiKey: 'key-from-config' },
      { ANTHROPIC_BASE_URL: server.anthropicURL },
    );

    expect((await generate(fromEnv, request('hello'))).content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(credentialOf(server.recorder.requests[0]!.headers)).toBe('key-from-config');
  });

  it('ends with a cancelled error, not a partial response, when aborted during a slow stream', async () => {
    server.mock.onMessage('slow', { content: 'a long and slow answer that never finishes' }, { chunkSize: 3, latency: 100 });
    const controller = new AbortController();
    const parts: StreamPart[] = [];

    const error = await caught(async () => {
      for await (const part of provider().stream(request('slow'), { signal: controller.signal })) {
        parts.push(part);
        controller.abort();
      }
    });

    expect(error).toMatchObject({ code: 'cancelled' });
    expect(parts).toEqual([{ type: 'text-delta', text: 'a l' }]);
    expect(server.anthropicBodies()).toHaveLength(1);
  });

  it('ends with a cancelled error when aborted before the response began', async () => {
    server.mock.onMessage('slow', { content: 'late' }, { latency: 5_000 });
    const controller = new AbortController();
    const pending = caught(() => generate(provider(), request('slow'), { signal: controller.signal }));
    controller.abort();

    expect(await pending).toMatchObject({ code: 'cancelled' });
  });
});
