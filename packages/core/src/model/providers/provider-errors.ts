import type { LegionErrorCode } from '../../kernel/index.js';
import { errorMessage, ProviderError } from '../../kernel/index.js';

/** What we read off an SDK error without importing the SDK: both SDKs set these. */
interface SdkErrorShape {
  status?: number;
  name?: string;
  headers?: unknown;
  error?: { error?: { message?: string }; message?: string };
  /** OpenAI's error code (`context_length_exceeded`). */
  code?: unknown;
}

/**
 * How the providers say a prompt is longer than the model's window: Anthropic's
 * 400 invalid_request_error "prompt is too long: 210000 tokens > 200000 maximum",
 * OpenAI's 400 `context_length_exceeded` "This model's maximum context length is …"
 * (and servers speaking its protocol: "… exceeds the context window", "too many tokens").
 */
const CONTEXT_TOO_LONG =
  /prompt is too long|context_length_exceeded|maximum context length|exceeds the context window|context window (?:is )?exceeded|too many (?:input )?tokens/i;

/**
 * The account is out of money, in the providers' words: Anthropic's 400 "Your credit balance is
 * too low to access the Anthropic API", OpenAI's 429 "You exceeded your current quota, please
 * check your plan and billing details", OpenRouter's 402 "Insufficient credits".
 */
const NO_CREDIT = /credit balance is too low|exceeded your current quota|insufficient[_ ](?:quota|credits|balance)/i;

export interface ProviderErrorContext {
  provider: string;
  model: string;
  baseURL: string | undefined;
  apiKeyEnv?: string | undefined;
  /** The variable that sets the provider's endpoint (`ANTHROPIC_BASE_URL`), named in the fix of a connection failure. */
  baseURLEnv?: string | undefined;
}

/**
 * Turns an SDK failure into a `ProviderError` that names the provider, the
 * model and what to do about it.
 */
export function toProviderError(error: unknown, context: ProviderErrorContext): ProviderError {
  if (error instanceof ProviderError) return error;
  const { provider, model } = context;
  const shape = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorShape;
  // The provider's own words when it sent a body: the SDK's message repeats the status and the raw JSON around them.
  const detail = (shape.status !== undefined ? providerMessage(shape) : undefined) ?? errorMessage(error);
  const keyHint = context.apiKeyEnv
    ? `Check ${context.apiKeyEnv} (or providers.${provider}.apiKey in the global Legion config)`
    : 'Check the API key';
  const where = context.baseURL ?? 'the default endpoint';
  const make = (code: LegionErrorCode, message: string, fix: string) =>
    new ProviderError(provider, model, message, fix, { code, cause: error });
  // No credit or quota left: a 400 at Anthropic, a 429 `insufficient_quota` at OpenAI. Not a rate
  // limit (waiting does not mend it, so it is not retried) and not a setting of the agent's.
  if (
    (shape.status === 400 || shape.status === 402 || shape.status === 403 || shape.status === 429) &&
    (shape.code === 'insufficient_quota' || NO_CREDIT.test(detail))
  )
    return make(
      'provider_quota',
      `the account has no credit or quota left (${shape.status}: ${detail})`,
      `Add credit or raise the quota in ${provider}'s billing settings, or use another key (${keyHint.replace(/^Check /, '')}).`,
    );
  switch (shape.status) {
    case 401:
      return make('provider_auth', `the API key was rejected (401: ${detail})`, `${keyHint}.`);
    case 403:
      return make('provider_forbidden', `access denied (403: ${detail})`, `${keyHint}, and that the key may use this model.`);
    case 404:
      return make(
        'provider_model_not_found',
        `model or endpoint not found at ${where} (404: ${detail})`,
        `Check the model name "${model}" in the participant's "model" setting and the base URL.`,
      );
    case 429:
      return make(
        'provider_rate_limited',
        `rate limited (429: ${detail})`,
        `Wait and try again, or raise providers.${provider}.maxRetries.`,
      );
    default:
      break;
  }
  if (shape.status !== undefined && shape.status >= 500) {
    return make(
      'provider_unavailable',
      `the service failed (${shape.status}: ${detail})`,
      `It is usually temporary: try again later (Legion retries it by itself as often as providers.${provider}.maxRetries allows).`,
    );
  }
  if ((shape.status === 400 || shape.status === 413) && (shape.code === 'context_length_exceeded' || CONTEXT_TOO_LONG.test(detail))) {
    return make(
      'provider_context_too_long',
      `the prompt is longer than the model's window (${shape.status}: ${detail})`,
      `Legion compacts the conversation and retries once; if it still fails, set the model's window (context.window, or "models" in the config) to what ${model} really takes.`,
    );
  }
  // The provider's own refusal, named as its: most 400s are a setting this model or server does not take, not Legion's doing.
  if (shape.status === 400)
    return make(
      'provider_bad_request',
      `${where === 'the default endpoint' ? provider : where} refused the request (400: ${detail})`,
      `Those are the provider's words: correct what they name (the model name, maxTokens, temperature or another field of the agent's "model" setting, or the base URL); if they name nothing you set, report it to Legion with the message.`,
    );
  const name = errorName(error);
  if (name === 'APIUserAbortError' || name === 'AbortError') return cancelledError(context, error);
  if (name === 'APIConnectionTimeoutError')
    return make(
      'provider_timeout',
      `no answer within the request timeout from ${where}`,
      `Raise providers.${provider}.timeoutMs, or check that the endpoint is up.`,
    );
  if (name === 'APIConnectionError') return unreachableError(error, context);
  return make('provider_error', detail, 'See the message above.');
}

/**
 * Why the connection failed, read from the system error under the SDK's "Connection error." (the
 * SDK's error ← fetch's "fetch failed" ← `connect ECONNREFUSED 127.0.0.1:4000`), with the fix for
 * that reason. A refused connection, an unknown host name and a port fetch will not use are
 * permanent (`isRetryableError` does not retry them: a retry a second later meets the same closed
 * port, and only delays the error); a reset, a timeout or a DNS server that did not answer may pass.
 */
function unreachableError(error: unknown, context: ProviderErrorContext): ProviderError {
  const where = context.baseURL ?? 'the default endpoint';
  const setting = `model.baseURL${context.baseURLEnv ? ` or ${context.baseURLEnv}` : ''}`;
  const system = systemCause(error);
  const make = (problem: string, fix: string) =>
    new ProviderError(context.provider, context.model, `cannot connect to ${where}: ${problem}`, fix, {
      code: 'provider_unreachable',
      cause: error,
    });
  if (system.code === 'ECONNREFUSED')
    return make('connection refused (nothing is listening there)', `Start the model server, or correct the base URL (${setting}).`);
  if (system.code === 'ENOTFOUND')
    return make(`no host named "${hostOf(where)}" was found`, `Correct the host name in the base URL (${setting}), or check your network.`);
  if (system.message === 'bad port')
    return make('fetch refuses that port (a port reserved for other protocols)', `Use another port in the base URL (${setting}).`);
  return make(
    system.message ?? system.code ?? errorMessage(error),
    `Check that the endpoint is running and reachable, and the base URL (${setting}); Legion retries it by itself as often as providers.${context.provider}.maxRetries allows.`,
  );
}

/** Connection failures that a retry cannot mend (see `unreachableError`). */
function isPermanentConnectionFailure(error: ProviderError): boolean {
  const system = systemCause(error.cause);
  return system.code === 'ECONNREFUSED' || system.code === 'ENOTFOUND' || system.message === 'bad port';
}

/** The deepest cause of an error: where Node puts the system's code (`ECONNREFUSED`) and message. */
function systemCause(error: unknown): { code?: string; message?: string } {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const cause = (current as { cause?: unknown }).cause;
    if (typeof cause !== 'object' || cause === null) break;
    current = cause;
  }
  if (current === error || typeof current !== 'object' || current === null) return {};
  const { code, message } = current as { code?: unknown; message?: unknown };
  return {
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof message === 'string' ? { message } : {}),
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

/** The message of an error body: Anthropic's `{ error: { message } }`, OpenAI's `{ message }`. */
function providerMessage(shape: SdkErrorShape): string | undefined {
  const message = shape.error?.error?.message ?? shape.error?.message;
  return typeof message === 'string' && message.trim() !== '' ? message.trim() : undefined;
}

/** The provider refused the request as longer than the model's window. */
export function isContextTooLongError(error: unknown): boolean {
  return error instanceof ProviderError && error.code === 'provider_context_too_long';
}

/** The window a too-long error names (Anthropic's "> 200000 maximum", OpenAI's "maximum context length is 128000 tokens"), if it names one. */
export function windowNamedBy(error: unknown): number | undefined {
  if (!isContextTooLongError(error)) return undefined;
  const text = errorMessage(error);
  const match = /tokens? > (\d+) maximum/.exec(text) ?? /maximum context length is (\d+) tokens/.exec(text);
  return match ? Number(match[1]) : undefined;
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
  return new ProviderError(context.provider, context.model, 'the request was cancelled', 'Nothing to fix: it was stopped on purpose.', {
    code: 'cancelled',
    cause,
  });
}

/** A 200 whose body is not a stream of events: an HTML page (a proxy's login), JSON, or nothing at all. */
export async function notAStreamError(
  response: { status: number; headers: { get(name: string): string | null }; text(): Promise<string> },
  context: ProviderErrorContext,
): Promise<ProviderError> {
  const type = response.headers.get('content-type') ?? '';
  let body = '';
  try {
    body = await response.text();
  } catch {
    // Unreadable: the type and size are what we can say.
  }
  const where = context.baseURL ?? 'the default endpoint';
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1]?.trim();
  const preview = body.replace(/\s+/g, ' ').trim().slice(0, 160);
  const what =
    body.length === 0
      ? `an empty body (status ${response.status}${type ? `, ${type}` : ''})`
      : `${/html/i.test(type) || /^\s*<(!doctype|html)/i.test(body) ? 'an HTML page' : 'a non-stream body'} (status ${response.status}, ${type || 'no content type'}, ${body.length} bytes${title ? `, titled "${title}"` : ''}: ${JSON.stringify(preview)})`;
  return new ProviderError(
    context.provider,
    context.model,
    `${where} answered with ${what} instead of a stream of events`,
    "Check the base URL (a proxy, a captive portal or a wrong path answers like this) and that the endpoint speaks this provider's API.",
    { code: 'provider_bad_response' },
  );
}

/** A stream that ended without any answer in it. */
export function emptyResponseError(context: ProviderErrorContext, what: string): ProviderError {
  return new ProviderError(
    context.provider,
    context.model,
    `${context.baseURL ?? 'the default endpoint'} sent ${what}: an empty response`,
    "Check that the endpoint speaks this provider's API; it is retried when it happens now and then.",
    { code: 'provider_empty_response' },
  );
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
      ? new ProviderError(
          context.provider,
          context.model,
          `the response broke off mid-stream (${errorMessage(error)})`,
          'It is usually temporary: try again.',
          {
            code: 'provider_stream_interrupted',
            cause: error,
          },
        )
      : converted;
  brokenStreams.add(result);
  return result;
}

/**
 * Whether a call that failed before yielding anything may be tried again: an
 * HTTP 408, 409, 429 or 5xx, a connection that failed for a passing reason, no
 * answer in time, or a response that broke off. A wrong key, an unknown model,
 * a bad request, a refused connection or an unknown host is not.
 */
export function isRetryableError(error: unknown): boolean {
  if (!(error instanceof ProviderError)) return false;
  if (brokenStreams.has(error)) {
    const shape = sdkShape(error.cause);
    return shape.status === undefined || shape.status === 408 || shape.status === 409 || shape.status === 429 || shape.status >= 500;
  }
  const shape = sdkShape(error.cause);
  if (error.code === 'provider_quota') return false;
  if (shape.status !== undefined) return shape.status === 408 || shape.status === 409 || shape.status === 429 || shape.status >= 500;
  return (
    (error.code === 'provider_unreachable' && !isPermanentConnectionFailure(error)) ||
    error.code === 'provider_timeout' ||
    error.code === 'provider_stalled' ||
    error.code === 'provider_empty_response'
  );
}

/** How long the provider asked us to wait (`retry-after-ms`, `retry-after` in seconds or as a date), if it did. */
export function retryAfterMs(error: unknown): number | undefined {
  const headers = sdkShape(error instanceof ProviderError ? error.cause : error).headers;
  const read = (name: string): string | undefined => {
    if (!headers || typeof headers !== 'object') return undefined;
    const getter = (headers as { get?: unknown }).get;
    const value =
      typeof getter === 'function'
        ? (getter as (name: string) => string | null).call(headers, name)
        : (headers as Record<string, unknown>)[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const milliseconds = Number(read('retry-after-ms'));
  if (Number.isFinite(milliseconds) && milliseconds >= 0 && read('retry-after-ms') !== undefined) return milliseconds;
  const header = read('retry-after');
  if (header === undefined) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sdkShape(value: unknown): SdkErrorShape {
  return (typeof value === 'object' && value !== null ? value : {}) as SdkErrorShape;
}
