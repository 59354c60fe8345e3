import type { ModelConfig } from '../../../team/collective/participant.js';
import { ProviderError } from '../../../kernel/errors.js';
import { caught, closedPortURL, collect, message, startLlmServer, keyEnv, userText, type LlmServer } from '../__fixtures__/llm-server.js';
import { generate, type ModelRequest, type StreamPart } from '../llm-provider.js';
import type { ProviderSettings } from '../ProviderFactory.js';
import { OpenAIProvider } from './OpenAIProvider.js';

const wordCountTool = {
  name: 'word_count',
  description: 'Counts the words of a text',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
};

function request(text: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: 'You are terse.', messages: [userText(text)], tools: [], ...extra };
}

describe('OpenAIProvider through the openai SDK against a local Chat Completions API', () => {
  let server: LlmServer;
  beforeAll(async () => {
    server = await startLlmServer();
  });
  afterAll(() => server.close());
  afterEach(() => server.reset());

  const provider = (settings: ProviderSettings = {}, model: Partial<ModelConfig> = {}, env = keyEnv(server.anthropicURL)) =>
    new OpenAIProvider({ provider: 'openai', model: 'gpt-test', baseURL: server.openaiURL, ...model }, settings, env);

  it('streams text as deltas, then usage and the finish reason, from the exact request body it sent', async () => {
    server.mock.onMessage(
      'hello',
      { content: 'Hello there, how can I help?', usage: { prompt_tokens: 17, completion_tokens: 8 } },
      { chunkSize: 6 },
    );

    const parts = await collect(provider().stream(request('hello')));

    const deltas = parts.filter((part) => part.type === 'text-delta').map((part) => part.text);
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe('Hello there, how can I help?');
    expect(parts.slice(deltas.length)).toEqual([
      { type: 'usage', usage: { inputTokens: 17, outputTokens: 8 } },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(server.recorder.requests).toHaveLength(1);
    const [sent] = server.recorder.requests;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(sent!.headers.authorization).toBe('Bearer test-openai-key');
    expect(sent!.body).toEqual({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'hello' },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('sends tool schemas and max_completion_tokens to OpenAI itself', async () => {
    server.mock.onMessage('count', { content: 'ok' });

    await collect(provider().stream(request('count', { tools: [wordCountTool], maxTokens: 300, temperature: 0.2 })));

    expect(server.openaiBodies()[0]).toEqual({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'count' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'word_count',
            description: 'Counts the words of a text',
            parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
          },
        },
      ],
      max_completion_tokens: 300,
      temperature: 0.2,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('sends max_tokens, and works without a key, for OpenAI-compatible servers', async () => {
    server.mock.onMessage('count', { content: 'ok' });
    const compatible = new OpenAIProvider(
      { provider: 'openai-compatible', model: 'qwen-local', baseURL: server.openaiURL, maxTokens: 64 },
      {},
      {},
    );
    const ollama = new OpenAIProvider({ provider: 'ollama', model: 'llama-local', baseURL: server.openaiURL }, {}, {});

    await generate(compatible, request('count', { maxTokens: 64 }));
    await generate(ollama, request('count', { maxTokens: 32 }));

    const [first, second] = server.openaiBodies();
    expect(first).toMatchObject({ model: 'qwen-local', max_tokens: 64 });
    expect(first).not.toHaveProperty('max_completion_tokens');
    expect(second).toMatchObject({ model: 'llama-local', max_tokens: 32 });
    expect(second).not.toHaveProperty('max_completion_tokens');
  });

  it('yields one tool call with its input parsed from the streamed arguments', async () => {
    server.mock.onMessage('count', { toolCalls: [{ id: 'call_one', name: 'word_count', arguments: '{"text":"three little words"}' }] });

    const parts = await collect(provider().stream(request('count', { tools: [wordCountTool] })));

    expect(parts.filter((part) => part.type === 'tool-call')).toEqual([
      { type: 'tool-call', id: 'call_one', name: 'word_count', input: { text: 'three little words' } },
    ]);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'tool_use' });
  });

  it('keeps text and several tool calls of one response in order', async () => {
    server.mock.onMessage('both', {
      content: 'Counting both.',
      toolCalls: [
        { id: 'call_a', name: 'word_count', arguments: '{"text":"one two"}' },
        { id: 'call_b', name: 'word_count', arguments: '{"text":"three"}' },
      ],
    });

    const response = await generate(provider(), request('both', { tools: [wordCountTool] }));

    expect(response.content).toEqual([
      { type: 'text', text: 'Counting both.' },
      { type: 'tool_use', id: 'call_a', name: 'word_count', input: { text: 'one two' } },
      { type: 'tool_use', id: 'call_b', name: 'word_count', input: { text: 'three' } },
    ]);
    expect(response.finishReason).toBe('tool_use');
  });

  it('turns arguments that are not JSON into an input error for that call only', async () => {
    server.mock.onMessage('sloppy', {
      toolCalls: [
        { id: 'call_bad', name: 'word_count', arguments: '{"text": "unterminated' },
        { id: 'call_good', name: 'word_count', arguments: '{"text":"fine"}' },
      ],
    });

    const response = await generate(provider(), request('sloppy', { tools: [wordCountTool] }));

    expect(response.content).toEqual([
      { type: 'tool_use', id: 'call_bad', name: 'word_count', input: {} },
      { type: 'tool_use', id: 'call_good', name: 'word_count', input: { text: 'fine' } },
    ]);
    expect([...response.inputErrors.keys()]).toEqual(['call_bad']);
    expect(response.inputErrors.get('call_bad')).toMatch(
      /^Your arguments were not valid JSON \(.+\): \{"text": "unterminated\. Call the tool again with a valid JSON object\.$/,
    );
  });

  it('sends a history with tool calls and tool results as assistant tool_calls and role "tool" messages, errors prefixed', async () => {
    server.mock.onMessage('count these', { content: 'The first has 2 words; the second failed.' });
    const history = [
      userText('count these'),
      message('assistant', [
        { type: 'text', text: 'Counting.' },
        { type: 'tool_use', id: 'call_a', name: 'word_count', input: { text: 'one two' } },
        { type: 'tool_use', id: 'call_b', name: 'word_count', input: { text: '' } },
      ]),
      message('user', [
        { type: 'tool_result', toolUseId: 'call_a', content: '{"words":2}' },
        { type: 'tool_result', toolUseId: 'call_b', content: 'Invalid input for word_count: "text" is empty.', isError: true },
      ]),
    ];

    const response = await generate(provider(), { system: 'You count.', messages: history, tools: [wordCountTool] });

    expect(response.content).toEqual([{ type: 'text', text: 'The first has 2 words; the second failed.' }]);
    expect(server.openaiBodies()[0]!.messages).toEqual([
      { role: 'system', content: 'You count.' },
      { role: 'user', content: 'count these' },
      {
        role: 'assistant',
        content: 'Counting.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'word_count', arguments: '{"text":"one two"}' } },
          { id: 'call_b', type: 'function', function: { name: 'word_count', arguments: '{"text":""}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '{"words":2}' },
      { role: 'tool', tool_call_id: 'call_b', content: 'Error: Invalid input for word_count: "text" is empty.' },
    ]);
  });

  it('maps the finish reasons length and content_filter', async () => {
    server.mock.onMessage('long', { content: 'This answer was cut', finishReason: 'length' });
    server.mock.onMessage('forbidden', { content: 'I cannot help with that.', finishReason: 'content_filter' });

    expect((await generate(provider(), request('long'))).finishReason).toBe('max_tokens');
    expect((await generate(provider(), request('forbidden'))).finishReason).toBe('refusal');
  });

  it('retries a stream that broke before yielding anything, and the second attempt answers', async () => {
    // the role chunk and the tool call's first chunk arrive, then the connection drops: no part was yielded yet.
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
    expect(server.openaiBodies()).toHaveLength(2);
    expect(server.openaiBodies()[1]).toEqual(server.openaiBodies()[0]);
    // A fresh request from our stream retry, not the SDK's own retry of a failed request.
    expect(server.recorder.requests.map((entry) => entry.headers['x-stainless-retry-count'])).toEqual(['0', '0']);
  });

  it("retries a connection dropped before the response began (Legion's loop: the SDK's own retries are off)", async () => {
    server.mock.on({ userMessage: 'flaky', sequenceIndex: 0 }, { content: 'never seen' }, { truncateAfterChunks: 1 });
    server.mock.onMessage('flaky', { content: 'second time lucky' });

    expect((await generate(provider(), request('flaky'))).content).toEqual([{ type: 'text', text: 'second time lucky' }]);
    expect(server.recorder.requests.map((entry) => entry.headers['x-stainless-retry-count'])).toEqual(['0', '0']);
  });

  it('does not retry a stream that broke after yielding text', async () => {
    server.mock.onMessage('fragile', { content: 'abcdefghijklmnopqrstuvwxyz' }, { chunkSize: 2, latency: 2, truncateAfterChunks: 4 });
    const seen: string[] = [];

    const error = await caught(() => generate(provider(), request('fragile'), { onTextDelta: (text) => seen.push(text) }));

    expect(error).toBeInstanceOf(ProviderError);
    expect(error.code).toBe('provider_stream_interrupted');
    expect(error.message).toMatch(/^openai \(gpt-test\): the response broke off mid-stream/);
    expect(seen.join('')).toMatch(/^ab/);
    expect(server.openaiBodies()).toHaveLength(1);
  });

  it('retries 5xx and 429 responses (the SDK does, honouring retry-after) and then answers', async () => {
    server.mock.nextRequestError(503, { message: 'unavailable' });
    server.mock.onMessage('busy', { content: 'finally' });
    expect((await generate(provider(), request('busy'))).content).toEqual([{ type: 'text', text: 'finally' }]);
    expect(server.recorder.requests.map((entry) => entry.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);

    server.recorder.requests.length = 0;
    server.mock.nextRequestError(429, { message: 'slow down', type: 'rate_limit_error' });
    expect((await generate(provider(), request('busy'))).content).toEqual([{ type: 'text', text: 'finally' }]);
    expect(server.openaiBodies()).toHaveLength(2);
    expect(server.openaiBodies()[1]).toEqual(server.openaiBodies()[0]);
  });

  it("gives up after maxRetries on a failing service, without retrying the SDK's retries again", async () => {
    server.mock.onMessage('down', { error: { message: 'bad gateway' }, status: 502 });

    const error = await caught(() => generate(provider({ maxRetries: 1 }), request('down')));

    expect(error).toMatchObject({ code: 'provider_unavailable' });
    expect(error.message).toContain('openai (gpt-test): the service failed (502');
    expect(server.openaiBodies()).toHaveLength(2);
  });

  it('reports a rejected key once, naming the provider, the model and the variable to fix', async () => {
    server.mock.onMessage('hi', {
      error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      status: 401,
    });

    const error = await caught(() => generate(provider(), request('hi')));

    expect(error).toMatchObject({ code: 'provider_auth', provider: 'openai', model: 'gpt-test' });
    expect(error.message).toContain('openai (gpt-test): the API key was rejected (401');
    expect(error.message).toContain('Check OPENAI_API_KEY');
    expect(server.openaiBodies()).toHaveLength(1);
  });

  it('reports an unknown model, naming it and where to change it', async () => {
    server.mock.onMessage('hi', {
      error: { message: 'The model `gpt-nope` does not exist', type: 'invalid_request_error', code: 'model_not_found' },
      status: 404,
    });

    const error = await caught(() => generate(provider({}, { model: 'gpt-nope' }), request('hi')));

    expect(error).toMatchObject({ code: 'provider_model_not_found', model: 'gpt-nope' });
    expect(error.message).toContain(`openai (gpt-nope): model or endpoint not found at ${server.openaiURL}`);
    expect(error.message).toContain('Check the model name "gpt-nope"');
    expect(server.openaiBodies()).toHaveLength(1);
  });

  it('reports a refused connection at once, with its URL and the settings to check', async () => {
    const nowhere = `${await closedPortURL()}/v1`;
    const retries: unknown[] = [];

    // With the default retries: a closed port is not retried (the error would only come later, said once per retry).
    const error = await caught(() =>
      generate(provider({}, { baseURL: nowhere }, keyEnv(nowhere)), request('hi'), { onRetry: (retry) => retries.push(retry) }),
    );

    expect(error).toMatchObject({ code: 'provider_unreachable' });
    expect(error.message).toContain(`openai (gpt-test): cannot connect to ${nowhere}: connection refused`);
    expect(error.message).toContain('Start the model server, or correct the base URL (model.baseURL or OPENAI_BASE_URL)');
    expect(retries).toEqual([]);
  });

  it('refuses to start without a key where one is required, naming the variable to set', () => {
    expect(() => provider({}, {}, {})).toThrow(/openai \(gpt-test\): no API key is set\. Set OPENAI_API_KEY in the environment/);
    expect(() => new OpenAIProvider({ provider: 'openrouter', model: 'any/model' }, {}, {})).toThrow(
      expect.objectContaining({ code: 'provider_no_key' }),
    );
    expect(() => new OpenAIProvider({ provider: 'openai-compatible', model: 'local' }, {}, {})).toThrow(
      expect.objectContaining({ code: 'provider_no_base_url' }),
    );
  });

  it('takes the key from the settings and the endpoint from OPENAI_BASE_URL', async () => {
    server.mock.onMessage('hello', { content: 'hi' });
    const fromEnv = new OpenAIProvider(
      { provider: 'openai', model: 'gpt-test' },
      { apiKey: 'key-from-config' },
      { OPENAI_BASE_URL: server.openaiURL },
    );

    expect((await generate(fromEnv, request('hello'))).content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(server.recorder.requests[0]!.headers.authorization).toBe('Bearer key-from-config');
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
    expect(server.openaiBodies()).toHaveLength(1);
  });
});
