import { LLMock } from '@copilotkit/aimock';
import { AnthropicProvider } from './anthropic/AnthropicProvider.js';
import { OpenAIProvider } from './openai/OpenAIProvider.js';
import { startWireRecorder } from '../testing/wire-recorder.js';
import type { StreamPart } from './llm-provider.js';

const env = { ANTHROPIC_API_KEY: 'test', OPENAI_API_KEY: 'test' };
const req = (text: string) => ({ system: 'sys', messages: [{ id: '1', at: '', role: 'user' as const, content: [{ type: 'text' as const, text }] }], tools: [] });

it('explores', async () => {
  const mock = new LLMock({ port: 0, host: '127.0.0.1' });
  mock.onMessage('auth', { error: { message: 'invalid x-api-key', type: 'authentication_error' }, status: 401 });
  mock.onMessage('trunc', { content: 'abcdefghijklmnopqrstuvwxyz' }, { chunkSize: 2, truncateAfterChunks: 3 });
  mock.onMessage('slow', { content: 'abcdefghijklmnopqrstuvwxyz' }, { chunkSize: 2, latency: 50 });
  await mock.start();
  const rec = await startWireRecorder(mock.url);
  for (const kind of ['anthropic', 'openai'] as const) {
    const p = kind === 'anthropic' ? new AnthropicProvider({ provider: 'anthropic', model: 'claude-test', baseURL: rec.url }, { maxRetries: 1 }, env) : new OpenAIProvider({ provider: 'openai', model: 'gpt-test', baseURL: rec.url + '/v1' }, { maxRetries: 1 }, env);
    for (const text of ['auth', 'trunc', 'slow']) {
      rec.requests.length = 0;
      const controller = new AbortController();
      const parts: StreamPart[] = [];
      const t0 = Date.now();
      try {
        for await (const part of p.stream(req(text), { signal: controller.signal })) {
          parts.push(part);
          if (text === 'slow' && parts.length === 2) controller.abort();
        }
        console.log(kind, text, 'ENDED OK', JSON.stringify(parts), Date.now() - t0, rec.requests.length);
      } catch (e) {
        const err = e as Error & { code?: string; cause?: unknown };
        console.log(kind, text, 'THREW', err.name, err.code, err.message, '| cause:', (err.cause as Error)?.name, (err.cause as Error)?.message, JSON.stringify(parts), Date.now() - t0, 'ms', rec.requests.length, 'requests');
      }
    }
  }
  await rec.close();
  await mock.stop();
});
