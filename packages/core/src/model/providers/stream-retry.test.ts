import { collect } from './__fixtures__/llm-server.js';
import type { StreamPart } from './llm-provider.js';
import Anthropic from '@anthropic-ai/sdk';
import { toProviderError, toStreamError } from './provider-errors.js';
import { parseToolArguments, streamWithRetries, type RetryPolicy } from './stream-retry.js';

const context = { provider: 'anthropic', model: 'claude-test', baseURL: undefined };
const broken = () => toStreamError(new TypeError('terminated'), context);

/** An attempt per entry: the parts it yields, then the error it throws (if any). */
function attempts(script: Array<{ parts: StreamPart[]; error?: Error; before?: () => void }>): {
  attempt: (signal: AbortSignal, activity: () => void) => AsyncIterable<StreamPart>;
  count: () => number;
} {
  let index = 0;
  return {
    count: () => index,
    attempt: async function* () {
      const step = script[index++];
      if (!step) throw new Error('no more attempts scripted');
      step.before?.();
      yield* step.parts;
      if (step.error) throw step.error;
    },
  };
}

const policy = (retries: number, baseDelayMs = 1): RetryPolicy => ({
  retries,
  baseDelayMs,
  timeoutMs: 60_000,
  idleTimeoutMs: 60_000,
  maxRetryWaitMs: 60_000,
});
const retryUntilFirstPart = (
  attempt: Parameters<typeof streamWithRetries>[0],
  options: { retries: number; baseDelayMs: number; signal?: AbortSignal },
) => streamWithRetries(attempt, policy(options.retries, options.baseDelayMs), context, { signal: options.signal });

describe('streamWithRetries', () => {
  it('retries an attempt that broke before its first part', async () => {
    const script = attempts([
      { parts: [], error: broken() },
      { parts: [], error: broken() },
      { parts: [{ type: 'text-delta', text: 'ok' }] },
    ]);

    expect(await collect(retryUntilFirstPart(script.attempt, { retries: 2, baseDelayMs: 1 }))).toEqual([
      { type: 'text-delta', text: 'ok' },
    ]);
    expect(script.count()).toBe(3);
  });

  it('says what failed as the first clause of one sentence, without the full stop of the error it came from', async () => {
    // A connection reset whose system message ends with a full stop, as Node's often do.
    const reset = new Anthropic.APIConnectionError({
      message: 'Connection error.',
      cause: Object.assign(new Error('The socket was closed.'), { code: 'ECONNRESET' }),
    });
    const script = attempts([{ parts: [], error: toProviderError(reset, context) }, { parts: [{ type: 'text-delta', text: 'ok' }] }]);
    const reasons: string[] = [];
    await collect(streamWithRetries(script.attempt, policy(1), context, { onRetry: (retry) => reasons.push(retry.reason) }));
    expect(reasons).toEqual(['cannot connect to the default endpoint: The socket was closed']);
  });

  it('stops after the allowed retries with the last error', async () => {
    const last = broken();
    const script = attempts([
      { parts: [], error: broken() },
      { parts: [], error: last },
    ]);

    await expect(collect(retryUntilFirstPart(script.attempt, { retries: 1, baseDelayMs: 1 }))).rejects.toBe(last);
    expect(script.count()).toBe(2);
  });

  it('never retries once a part was yielded, so no part arrives twice', async () => {
    const error = broken();
    const script = attempts([{ parts: [{ type: 'text-delta', text: 'half' }], error }]);
    const seen: StreamPart[] = [];

    await expect(
      (async () => {
        for await (const part of retryUntilFirstPart(script.attempt, { retries: 3, baseDelayMs: 1 })) seen.push(part);
      })(),
    ).rejects.toBe(error);
    expect(seen).toEqual([{ type: 'text-delta', text: 'half' }]);
    expect(script.count()).toBe(1);
  });

  it('does not retry errors that are not a broken stream, nor after an abort', async () => {
    const failed = attempts([{ parts: [], error: new Error('bug') }]);
    await expect(collect(retryUntilFirstPart(failed.attempt, { retries: 3, baseDelayMs: 1 }))).rejects.toThrow('bug');
    expect(failed.count()).toBe(1);

    const controller = new AbortController();
    controller.abort();
    const aborted = attempts([{ parts: [], error: broken() }]);
    await expect(
      collect(retryUntilFirstPart(aborted.attempt, { retries: 3, baseDelayMs: 1, signal: controller.signal })),
    ).rejects.toMatchObject({
      code: 'cancelled',
    });
    expect(aborted.count()).toBe(1);
  });
  it('stops waiting out the backoff when cancelled, and makes no further attempt', async () => {
    const controller = new AbortController();
    const script = attempts([
      // Aborts once the first failure is being handled, i.e. during the backoff.
      { parts: [], error: broken(), before: () => setImmediate(() => controller.abort()) },
      // What an SDK throws for a request whose signal is already aborted.
      { parts: [], error: toProviderError(new Anthropic.APIUserAbortError(), context) },
    ]);

    await expect(
      collect(retryUntilFirstPart(script.attempt, { retries: 3, baseDelayMs: 60_000, signal: controller.signal })),
    ).rejects.toMatchObject({
      code: 'cancelled',
    });
    expect(script.count()).toBe(1);
  });
});

describe('parseToolArguments', () => {
  it('parses JSON, and treats no arguments as an empty object', () => {
    expect(parseToolArguments('{"text":"a b"}')).toEqual({ input: { text: 'a b' } });
    expect(parseToolArguments('  ')).toEqual({ input: {} });
  });

  it('explains invalid JSON to the model, quoting at most 200 characters of it', () => {
    const result = parseToolArguments(`{"text": "${'x'.repeat(300)}`);

    expect(result.input).toEqual({});
    expect(result.inputError).toMatch(
      /^Your arguments were not valid JSON \(.+\): \{"text": "x+…\. Call the tool again with a valid JSON object\.$/,
    );
    expect(result.inputError!.match(/x{2,}/)![0]).toHaveLength(190);
  });
});
