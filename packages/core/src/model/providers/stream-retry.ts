import { ProviderError } from '../../kernel/index.js';
import type { ProviderRetry, StreamPart } from './llm-provider.js';
import { cancelledError, isRetryableError, retryAfterMs, type ProviderErrorContext } from './provider-errors.js';

export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number;
  /** The whole call — every attempt and every wait — ends by then. */
  timeoutMs: number;
  /** An attempt that receives nothing for this long has stalled. */
  idleTimeoutMs: number;
  /** The longest a provider may ask us to wait (`retry-after`) before we give up instead. */
  maxRetryWaitMs: number;
  /** The first backoff; it doubles per failure, with jitter, up to 8 s. */
  baseDelayMs?: number;
}

/** One attempt: the request made with `signal`, `activity()` called for every event received (pings included). */
export type Attempt = (signal: AbortSignal, activity: () => void) => AsyncIterable<StreamPart>;

/**
 * Legion, not the SDK, owns every wait of a model call (the SDKs run with
 * retries off), so that every wait can be cancelled, is capped, and is said:
 *
 * - a failure before anything was yielded (an HTTP 408/409/429/5xx, no
 *   connection, a stream that broke off or stalled) is retried with backoff,
 *   honouring `retry-after` up to `maxRetryWaitMs` — a longer ask ends the call
 *   with an error instead of blocking the turn for an hour;
 * - an attempt that receives nothing for `idleTimeoutMs` (after the headers too)
 *   is aborted: retried if it had yielded nothing, else an error;
 * - `timeoutMs` bounds the whole call, retries and waits included;
 * - the caller's signal ends any attempt or wait at once.
 *
 * Parts are yielded as they arrive; once one was yielded, nothing is retried,
 * so a caller never sees a part twice.
 */
export async function* streamWithRetries(
  attempt: Attempt,
  policy: RetryPolicy,
  context: ProviderErrorContext,
  options: { signal?: AbortSignal | undefined; onRetry?: ((retry: ProviderRetry) => void) | undefined } = {},
): AsyncIterable<StreamPart> {
  const deadline = Date.now() + policy.timeoutMs;
  for (let failures = 0; ; failures++) {
    const controller = new AbortController();
    let ended: 'stall' | 'deadline' | undefined;
    const stop = (reason: 'stall' | 'deadline'): void => {
      ended ??= reason;
      controller.abort(new Error(reason));
    };
    const onCancel = (): void => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onCancel, { once: true });
    if (options.signal?.aborted) onCancel();
    const deadlineTimer = setTimeout(() => stop('deadline'), Math.max(0, deadline - Date.now()));
    let idleTimer: NodeJS.Timeout | undefined;
    const activity = (): void => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => stop('stall'), policy.idleTimeoutMs);
    };
    let yielded = false;
    try {
      activity();
      for await (const part of attempt(controller.signal, activity)) {
        // The consumer's time is not the provider's silence.
        clearTimeout(idleTimer);
        yielded = true;
        yield part;
        activity();
      }
      if (ended) throw endedError(ended, context, policy);
      return;
    } catch (caught) {
      if (options.signal?.aborted) throw cancelledError(context, options.signal.reason);
      const error = ended ? endedError(ended, context, policy) : caught;
      if (yielded || ended === 'deadline' || failures >= policy.retries || !(ended === 'stall' || isRetryableError(error))) throw error;
      const asked = retryAfterMs(error);
      if (asked !== undefined && asked > policy.maxRetryWaitMs) {
        throw new ProviderError(
          context.provider,
          context.model,
          `the provider asked to wait ${formatSeconds(asked)} before retrying (retry-after); Legion waits at most ${formatSeconds(policy.maxRetryWaitMs)}`,
          `Try again later, or raise providers.${context.provider}.maxRetryWaitMs in the global config.`,
          { code: 'provider_rate_limited', cause: error },
        );
      }
      const backoff = Math.min((policy.baseDelayMs ?? 500) * 2 ** failures, 8_000) * (0.75 + Math.random() * 0.5);
      const waitMs = Math.round(asked ?? backoff);
      if (Date.now() + waitMs >= deadline) throw error;
      options.onRetry?.({
        attempt: failures + 1,
        of: policy.retries,
        waitMs,
        reason: retryReason(error),
        askedByProvider: asked !== undefined,
      });
      if (!(await sleep(waitMs, options.signal))) throw cancelledError(context, options.signal?.reason);
    } finally {
      clearTimeout(idleTimer);
      clearTimeout(deadlineTimer);
      options.signal?.removeEventListener('abort', onCancel);
    }
  }
}

/**
 * What failed, for the line announcing a retry: a provider error's problem alone, without the
 * provider and model (the event names them) and without its fix, which is advice for after the
 * last retry ("try again later"), not for a retry about to happen.
 */
/** What failed, as the first clause of one sentence: "…failed: <reason>; retry 1 of 3" (a closing period would end it early). */
function retryReason(error: unknown): string {
  const reason = error instanceof ProviderError ? error.problem : error instanceof Error ? error.message : String(error);
  return reason.replace(/[\s.]+$/, '');
}

function endedError(ended: 'stall' | 'deadline', context: ProviderErrorContext, policy: RetryPolicy): ProviderError {
  const where = context.baseURL ?? 'the default endpoint';
  if (ended === 'stall') {
    return new ProviderError(
      context.provider,
      context.model,
      `${where} sent nothing for ${formatSeconds(policy.idleTimeoutMs)} (the response stalled)`,
      `Check the endpoint, or raise providers.${context.provider}.idleTimeoutMs.`,
      {
        code: 'provider_stalled',
      },
    );
  }
  return new ProviderError(
    context.provider,
    context.model,
    `no complete answer from ${where} within ${formatSeconds(policy.timeoutMs)}, retries included`,
    `Raise providers.${context.provider}.timeoutMs, or check that the endpoint is up.`,
    {
      code: 'provider_timeout',
    },
  );
}

/** Resolves true after `ms`, or false at once when the signal aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
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
