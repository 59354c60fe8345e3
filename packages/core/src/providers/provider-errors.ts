import { errorMessage, ProviderError } from '../errors.js';

/** What we read off an SDK error without importing the SDK: both SDKs set these. */
interface SdkErrorShape {
  status?: number;
  name?: string;
  headers?: unknown;
  error?: { error?: { message?: string }; message?: string };
}

export interface ProviderErrorContext {
  provider: string;
  model: string;
  baseURL: string | undefined;
  apiKeyEnv?: string | undefined;
}

/**
 * Turns an SDK failure into a `ProviderError` that names the provider, the
 * model and what to do about it.
 */
export function toProviderError(error: unknown, context: ProviderErrorContext): ProviderError {
  if (error instanceof ProviderError) return error;
  const { provider, model } = context;
  const shape = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorShape;
  const detail = errorMessage(error);
  const keyHint = context.apiKeyEnv ? `Check ${context.apiKeyEnv} (or providers.${provider}.apiKey in the global Legion config)` : 'Check the API key';
  const where = context.baseURL ?? 'the default endpoint';
  const make = (code: string, message: string, fix: string) => new ProviderError(provider, model, message, fix, { code, cause: error });
  switch (shape.status) {
    case 401:
      return make('provider_auth', `the API key was rejected (401: ${detail})`, `${keyHint}.`);
    case 403:
      return make('provider_forbidden', `access denied (403: ${detail})`, `${keyHint}, and that the key may use this model.`);
    case 404:
      return make('provider_model_not_found', `model or endpoint not found at ${where} (404: ${detail})`, `Check the model name "${model}" in the participant's "model" setting and the base URL.`);
    case 429:
      return make('provider_rate_limited', `rate limited, and retries did not get through (429: ${detail})`, `Wait and try again, or raise providers.${provider}.maxRetries.`);
    default:
      break;
  }
  if (shape.status !== undefined && shape.status >= 500) {
    return make('provider_unavailable', `the service failed (${shape.status}: ${detail})`, 'It is usually temporary: try again; retries were already made.');
  }
  if (shape.status === 400) return make('provider_bad_request', `the request was refused (400: ${detail})`, 'This is likely a Legion bug or an unsupported model setting; report it with the message.');
  const name = errorName(error);
  if (name === 'APIUserAbortError' || name === 'AbortError') return cancelledError(context, error);
  if (name === 'APIConnectionTimeoutError') return make('provider_timeout', `no answer within the request timeout from ${where}`, `Raise providers.${provider}.timeoutMs, or check that the endpoint is up.`);
  if (name === 'APIConnectionError') return make('provider_unreachable', `cannot connect to ${where} (${detail})`, 'Check that the endpoint is running and the base URL is right (model.baseURL, or the provider\'s *_BASE_URL variable).');
  return make('provider_error', detail, 'See the message above.');
}

/** OpenAI's SDK (v6) leaves `name` as "Error" on its error classes; the class name tells them apart. */
function errorName(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '';
  const className = error.constructor?.name ?? '';
  if (className.startsWith('API')) return className;
  const name = (error as { name?: unknown }).name;
  return typeof name === 'string' ? name : '';
}

/** The caller aborted the request: same code as a turn cancelled between model calls. */
export function cancelledError(context: ProviderErrorContext, cause?: unknown): ProviderError {
  return new ProviderError(context.provider, context.model, 'the request was cancelled', 'Nothing to fix: it was stopped on purpose.', { code: 'cancelled', cause });
}

/** Errors raised while reading a response that had begun (see `toStreamError`). */
const brokenStreams = new WeakSet<ProviderError>();

/**
 * An error raised while reading a streamed response, after the request
 * itself succeeded. The SDKs do not retry these, so `retryUntilFirstPart` may.
 */
export function toStreamError(error: unknown, context: ProviderErrorContext): ProviderError {
  const converted = toProviderError(error, context);
  if (converted.code === 'cancelled') return converted;
  const result =
    converted.code === 'provider_error'
      ? new ProviderError(context.provider, context.model, `the response broke off mid-stream (${errorMessage(error)})`, 'It is usually temporary: try again.', {
          code: 'provider_stream_interrupted',
          cause: error,
        })
      : converted;
  brokenStreams.add(result);
  return result;
}

/**
 * Whether a stream that failed before yielding anything may be tried again.
 * Only a response that broke off is: a failed request (an HTTP error status,
 * no connection, a timeout) was already retried by the SDK with backoff and
 * `retry-after`, so retrying it here would multiply the attempts, and a wrong
 * key, a missing SDK or an unknown model would be retried for nothing.
 */
export function isRetryableStreamError(error: unknown): boolean {
  if (!(error instanceof ProviderError) || !brokenStreams.has(error)) return false;
  const shape = (typeof error.cause === 'object' && error.cause !== null ? error.cause : {}) as SdkErrorShape;
  if (shape.status !== undefined) return shape.status === 408 || shape.status === 409 || shape.status === 429 || shape.status >= 500;
  return true;
}
