import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParticipantInput } from '../../team/collective/participant.js';
import { createTestLegion, userParticipant, type TestLegion } from '../../testing/index.js';
import { AnthropicProvider } from './anthropic/AnthropicProvider.js';
import { caught, keyEnv, userText } from './__fixtures__/llm-server.js';
import { generate, type ProviderRetry } from './llm-provider.js';
import { OpenAIProvider } from './openai/OpenAIProvider.js';

/** What the hostile server does with the n-th request (0-based). */
type Behaviour = (response: ServerResponse, index: number, request: IncomingMessage) => void;

/** A raw HTTP server on 127.0.0.1 that misbehaves on the wire as told, counting requests. */
async function hostileServer(behave: Behaviour): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let count = 0;
  const open = new Set<ServerResponse>();
  const server: Server = createServer((request, response) => {
    const index = count++;
    open.add(response);
    response.on('close', () => open.delete(response));
    request.resume();
    request.on('end', () => behave(response, index, request));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => count,
    close: async () => {
      for (const response of open) response.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const anthropicEvents = (text: string, stopReason = 'end_turn'): string =>
  [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 5, output_tokens: 0 },
        },
      },
    ],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: stopReason }, usage: { output_tokens: 3 } }],
    ['message_stop', { type: 'message_stop' }],
  ]
    .map(([event, data]) => `event: ${event as string}\ndata: ${JSON.stringify(data)}\n\n`)
    .join('');

const sse = (response: ServerResponse, body: string): void => {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.end(body);
};
const rateLimited = (response: ServerResponse, headers: Record<string, string>): void => {
  response.writeHead(429, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }));
};

const claude = (baseURL: string, settings: Record<string, number> = {}) =>
  new AnthropicProvider({ provider: 'anthropic', model: 'claude-test', baseURL }, settings, keyEnv(baseURL));
const gpt = (baseURL: string, settings: Record<string, number> = {}) =>
  new OpenAIProvider({ provider: 'openai', model: 'gpt-test', baseURL: `${baseURL}/v1` }, settings, keyEnv(baseURL));
const request = { system: '', messages: [userText('hi')], tools: [] };

describe('providers that misbehave on the wire', () => {
  let server: Awaited<ReturnType<typeof hostileServer>> | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('a retry-after beyond the cap ends the call at once with an error naming the cap, instead of blocking the turn', async () => {
    server = await hostileServer((response) => rateLimited(response, { 'retry-after': '3600' }));
    const started = Date.now();
    const error = await caught(() => generate(claude(server!.url), request));
    expect(error.message).toContain('the provider asked to wait 3600 s before retrying (retry-after); Legion waits at most 60 s');
    expect(error.message).toContain('providers.anthropic.maxRetryWaitMs');
    expect(error.code).toBe('provider_rate_limited');
    expect(server.requests()).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a short retry-after is waited out, said before the wait, and the answer arrives', async () => {
    server = await hostileServer((response, index) =>
      index === 0 ? rateLimited(response, { 'retry-after-ms': '150' }) : sse(response, anthropicEvents('after the wait')),
    );
    const retries: ProviderRetry[] = [];
    const response = await generate(claude(server.url), request, { onRetry: (retry) => retries.push(retry) });
    expect(response.content).toEqual([{ type: 'text', text: 'after the wait' }]);
    expect(retries).toEqual([{ attempt: 1, of: 3, waitMs: 150, askedByProvider: true, reason: expect.stringContaining('429') }]);
    expect(server.requests()).toBe(2);
  });

  it('cancelling during a retry wait ends the call at once', async () => {
    server = await hostileServer((response) => rateLimited(response, { 'retry-after': '50' }));
    const controller = new AbortController();
    const error = await caught(() =>
      generate(gpt(server!.url), request, { signal: controller.signal, onRetry: () => setImmediate(() => controller.abort()) }),
    );
    expect(error.code).toBe('cancelled');
    expect(server.requests()).toBe(1);
  });

  it('a stream that stalls after the headers is ended by the idle timeout and retried; one that stalls after text is an error', async () => {
    // Headers and the first event, then silence (the connection stays open).
    server = await hostileServer((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(anthropicEvents('').split('\n\n')[0] + '\n\n');
    });
    // 2 s of silence, not 200 ms: the idle timer runs from the attempt's start, and a loaded machine took more than
    // 200 ms to get the first request to the server (its stall came before the headers, so the server saw one request).
    const silent = await caught(() => generate(claude(server!.url, { idleTimeoutMs: 2_000, maxRetries: 1 }), request));
    expect(silent.code).toBe('provider_stalled');
    expect(silent.message).toContain('sent nothing for 2 s');
    expect(server.requests()).toBe(2);
    await server.close();

    server = await hostileServer((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(anthropicEvents('half an answer').split('\n\n').slice(0, 3).join('\n\n') + '\n\n');
    });
    const seen: string[] = [];
    // The text already shown when each retry was decided. A loaded machine may take more than 200 ms to deliver an
    // attempt's first bytes; that attempt stalled before any text, and is rightly retried.
    const shownAtRetry: string[] = [];
    const midway = await caught(() =>
      generate(claude(server!.url, { idleTimeoutMs: 200, maxRetries: 3 }), request, {
        onTextDelta: (text) => seen.push(text),
        onRetry: () => shownAtRetry.push(seen.join('')),
      }),
    );
    expect(midway.code).toBe('provider_stalled');
    expect(seen.join('')).toBe('half an answer');
    // Never retried once text was shown: every request but the last was retried before any text.
    expect(shownAtRetry).toEqual(Array.from({ length: server.requests() - 1 }, () => ''));
  });

  it('the whole call, retries and waits included, ends within timeoutMs', async () => {
    server = await hostileServer((response) => {
      response.writeHead(503, { 'content-type': 'application/json', 'retry-after-ms': '1000' });
      response.end('{"error":{"message":"busy"}}');
    });
    const started = Date.now();
    // 5 s: long enough for the first answer to arrive on a loaded 2-core machine (the message names its 503), far
    // below 100 retries' waits (100 s). The bound leaves a loaded machine 7 s to notice the deadline.
    const error = await caught(() => generate(gpt(server!.url, { timeoutMs: 5_000, maxRetries: 100 }), request));
    expect(error.message).toContain('503');
    expect(server.requests()).toBeLessThan(10);
    expect(Date.now() - started).toBeLessThan(12_000);
  });

  it.each([
    [
      'an empty 200 body',
      (response: ServerResponse) => response.writeHead(200).end(),
      'provider_bad_response',
      'an empty body (status 200)',
    ],
    ['an empty event stream', (response: ServerResponse) => sse(response, ''), 'provider_empty_response', 'an empty response'],
    [
      'an HTML login page',
      (response: ServerResponse) =>
        response
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!doctype html><html><head><title>Wi-Fi login</title></head><body>Sign in</body></html>'),
      'provider_bad_response',
      'an HTML page (status 200, text/html, 87 bytes, titled "Wi-Fi login"',
    ],
  ])('%s is an error naming the provider and what arrived', async (_name, behave, code, what) => {
    server = await hostileServer((response) => behave(response));
    for (const provider of [claude(server.url, { maxRetries: 0 }), gpt(server.url, { maxRetries: 0 })]) {
      const error = await caught(() => generate(provider, request));
      expect(error.code).toBe(code);
      expect(error.message).toContain(what);
      expect(error.message).toMatch(/^(anthropic \(claude-test\)|openai \(gpt-test\)): http:\/\/127\.0\.0\.1:\d+/);
    }
  });
});

describe('a turn against a misbehaving provider', () => {
  let server: Awaited<ReturnType<typeof hostileServer>> | undefined;
  let test: TestLegion | undefined;
  afterEach(async () => {
    await test?.cleanup();
    await server?.close();
    test = undefined;
    server = undefined;
  });

  const legionWith = (url: string): TestLegion =>
    createTestLegion({
      participants: [
        userParticipant(),
        {
          id: 'writer',
          type: 'agent',
          name: 'writer',
          systemPrompt: 'x',
          model: { provider: 'anthropic', model: 'claude-test', baseURL: url },
        } as ParticipantInput,
      ],
      env: keyEnv(url),
    });
  const logLines = (root: string, sessionId: string): Array<{ role: string; content: unknown[] }> =>
    readFileSync(join(root, '.legion', 'sessions', sessionId, 'conversations', 'user__writer.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { role: string; content: unknown[] });

  it('an empty answer ends the turn as an error and leaves no empty assistant message in the log', async () => {
    server = await hostileServer((response) =>
      sse(response, anthropicEvents('').replace(/event: content_block_delta[^\n]*\n[^\n]*\n\n/, '')),
    );
    test = legionWith(server.url);
    const session = await test.legion.sessions.create();
    const result = await test.legion.send(session, 'hello', { to: 'writer' });
    expect(result).toMatchObject({ status: 'error', code: 'provider_empty_response' });
    // The only assistant message is the turn's ending, not an empty reply.
    expect(logLines(test.root, session.id).flatMap((line) => (line.role ? [line.role] : []))).toEqual(['user', 'assistant']);
    expect(logLines(test.root, session.id).at(-1)).toMatchObject({ ending: { status: 'failed', code: 'provider_empty_response' } });
  });

  it('a reply cut at max_tokens is returned marked as truncated', async () => {
    server = await hostileServer((response) => sse(response, anthropicEvents('The first half of', 'max_tokens')));
    test = legionWith(server.url);
    const result = await test.legion.send(await test.legion.sessions.create(), 'write a lot', { to: 'writer' });
    expect(result).toMatchObject({ status: 'success', reply: 'The first half of', truncated: true });
  });
});

describe('provider keys are bound to their endpoints', () => {
  let server: Awaited<ReturnType<typeof hostileServer>> | undefined;
  let test: TestLegion | undefined;
  afterEach(async () => {
    await test?.cleanup();
    await server?.close();
    test = undefined;
    server = undefined;
  });

  /** A host that collects the keys sent to it, answering like Anthropic. */
  async function keyCollector(): Promise<{ keys: string[] }> {
    const keys: string[] = [];
    server = await hostileServer((response, _index, request) => {
      keys.push(String(request.headers['x-api-key'] ?? request.headers.authorization?.replace(/^Bearer /, '') ?? ''));
      sse(response, anthropicEvents('collected'));
    });
    return { keys };
  }

  const agentAt = (url: string): ParticipantInput =>
    ({
      id: 'writer',
      type: 'agent',
      name: 'writer',
      systemPrompt: 'x',
      model: { provider: 'anthropic', model: 'claude-test', baseURL: url },
    }) as ParticipantInput;

  it('a participant whose model.baseURL points at another host does not get the key sent there', async () => {
    const { keys } = await keyCollector();
    // The key is meant for Anthropic's own endpoint (no base URL configured).
    test = createTestLegion({ participants: [userParticipant(), agentAt(server!.url)], env: { ANTHROPIC_API_KEY: 'sk-ant-secret' } });
    const result = await test.legion.send(await test.legion.sessions.create(), 'hello', { to: 'writer' });
    expect(result.status).toBe('error');
    expect(result.status === 'error' && result.error).toMatch(
      /anthropic key is not sent to http:\/\/127\.0\.0\.1:\d+ \(model\.baseURL\).*keyOrigins/,
    );
    expect(keys).toEqual([]);
    expect(server!.requests()).toBe(0);
  });

  it('the user may allow another endpoint for the key (providers.<name>.keyOrigins), or make it the provider endpoint', async () => {
    const { keys } = await keyCollector();
    test = createTestLegion({ participants: [userParticipant(), agentAt(`${server!.url}/`)], env: { ANTHROPIC_API_KEY: 'sk-ant-secret' } });
    const configFile = join(test.root, '.legion', 'config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(configFile, JSON.stringify({ ...config, providers: { anthropic: { keyOrigins: [server!.url] } } }));
    const allowed = test.reopen();
    try {
      const result = await allowed.send(await allowed.sessions.create(), 'hello', { to: 'writer' });
      expect(result.status === 'success' && result.reply).toBe('collected');
    } finally {
      await allowed.close();
    }
    expect(keys).toEqual(['sk-ant-secret']);

    const viaEndpoint = createTestLegion({
      participants: [userParticipant(), agentAt(server!.url)],
      env: { ANTHROPIC_API_KEY: 'sk-ant-other', ANTHROPIC_BASE_URL: server!.url },
    });
    try {
      const result = await viaEndpoint.legion.send(await viaEndpoint.legion.sessions.create(), 'hello', { to: 'writer' });
      expect(result.status).toBe('success');
    } finally {
      await viaEndpoint.cleanup();
    }
    expect(keys).toEqual(['sk-ant-secret', 'sk-ant-other']);
  });
});
