import { isRetryableStreamError } from './provider-errors.js';
import type { StreamPart } from './llm-provider.js';

/**
 * The SDKs retry failed requests (429, 5xx, connection errors, honouring
 * `retry-after`); a stream that breaks after the response began is ours to
 * retry. We retry only while nothing has been yielded, so a caller never sees
 * a part twice.
 */
export async function* retryUntilFirstPart(
  attempt: () => AsyncIterable<StreamPart>,
  options: { retries: number; signal?: AbortSignal | undefined; baseDelayMs?: number },
): AsyncIterable<StreamPart> {
  for (let failures = 0; ; failures++) {
    let yielded = false;
    try {
      for await (const part of attempt()) {
        yielded = true;
        yield part;
      }
      return;
    } catch (error) {
      if (yielded || failures >= options.retries || options.signal?.aborted || !isRetryableStreamError(error)) throw error;
      const delay = Math.min((options.baseDelayMs ?? 500) * 2 ** failures, 8_000) * (0.75 + Math.random() * 0.5);
      // Cancelling must not wait out the backoff: the next attempt then fails at once as cancelled.
      await sleep(delay, options.signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Parses streamed tool-call arguments; an empty string means no arguments. */
export function parseToolArguments(json: string): { input: unknown; inputError?: string } {
  if (json.trim() === '') return { input: {} };
  try {
    return { input: JSON.parse(json) as unknown };
  } catch (error) {
    const preview = json.length > 200 ? `${json.slice(0, 200)}…` : json;
    return {
      input: {},
      inputError: `Your arguments were not valid JSON (${(error as Error).message}): ${preview}. Call the tool again with a valid JSON object.`,
    };
  }
}
