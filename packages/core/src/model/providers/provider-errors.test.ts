import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ProviderError } from '../../kernel/errors.js';
import { isRetryableError, toProviderError, toStreamError } from './provider-errors.js';

const anthropic = { provider: 'anthropic', model: 'claude-test', baseURL: 'http://127.0.0.1:9/', apiKeyEnv: 'ANTHROPIC_API_KEY' };
const openai = { provider: 'openai', model: 'gpt-test', baseURL: 'http://127.0.0.1:9/v1', apiKeyEnv: 'OPENAI_API_KEY' };

// Errors as the SDKs themselves build them from a response.
const anthropicError = (status: number, type: string, message: string) =>
  Anthropic.APIError.generate(status, { type: 'error', error: { type, message } }, undefined, new Headers());
const openaiError = (status: number, message: string) => OpenAI.APIError.generate(status, { error: { message } }, undefined, new Headers());

describe('toProviderError', () => {
  it.each([
    [401, 'provider_auth', /the API key was rejected \(401.*\)\. Check ANTHROPIC_API_KEY \(or providers\.anthropic\.apiKey/],
    [403, 'provider_forbidden', /access denied \(403.*\)\. Check ANTHROPIC_API_KEY/],
    [404, 'provider_model_not_found', /model or endpoint not found at http:\/\/127\.0\.0\.1:9\/ .*Check the model name "claude-test"/],
    [429, 'provider_rate_limited', /rate limited.*raise providers\.anthropic\.maxRetries/],
    [400, 'provider_bad_request', /http:\/\/127\.0\.0\.1:9\/ refused the request \(400.*Those are the provider's words/],
    [529, 'provider_unavailable', /the service failed \(529/],
  ])('maps Anthropic status %i to %s with the fix', (status, code, text) => {
    const error = toProviderError(anthropicError(status, 'some_error', 'details from the API'), anthropic);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code, provider: 'anthropic', model: 'claude-test' });
    expect(error.message).toMatch(/^anthropic \(claude-test\): /);
    expect(error.message).toMatch(text);
    expect(error.message).toContain('details from the API');
    // The provider's words alone: not the SDK's status and raw JSON body around them.
    expect(error.message).toContain(`(${status}: details from the API)`);
  });

  it('names an account out of credit or quota as billing, and does not retry it', () => {
    const credit = toProviderError(
      anthropicError(400, 'invalid_request_error', 'Your credit balance is too low to access the Anthropic API.'),
      anthropic,
    );
    expect(credit).toMatchObject({ code: 'provider_quota' });
    expect(credit.message).toContain('the account has no credit or quota left (400: Your credit balance is too low');
    expect(credit.message).toContain(
      "Add credit or raise the quota in anthropic's billing settings, or use another key (ANTHROPIC_API_KEY",
    );
    const quota = toProviderError(
      OpenAI.APIError.generate(
        429,
        { error: { message: 'You exceeded your current quota, please check your plan and billing details.', code: 'insufficient_quota' } },
        undefined,
        new Headers(),
      ),
      openai,
    );
    expect(quota).toMatchObject({ code: 'provider_quota' });
    expect(isRetryableError(credit)).toBe(false);
    expect(isRetryableError(quota)).toBe(false);
    // A plain rate limit is still one, and retried.
    expect(isRetryableError(toProviderError(openaiError(429, 'Rate limit reached for requests'), openai))).toBe(true);
  });

  it("names a 400 as the provider's refusal in its own words, not as Legion's bug", () => {
    const error = toProviderError(openaiError(400, "Unsupported parameter: 'temperature' is not supported with this model."), openai);
    expect(error).toMatchObject({ code: 'provider_bad_request' });
    expect(error.message).toContain(
      "http://127.0.0.1:9/v1 refused the request (400: Unsupported parameter: 'temperature' is not supported with this model.)",
    );
    expect(error.message).toContain("Those are the provider's words");
    expect(error.message).not.toMatch(/Legion bug/);
  });

  it('maps OpenAI statuses the same way', () => {
    expect(toProviderError(openaiError(401, 'Incorrect API key'), openai)).toMatchObject({ code: 'provider_auth' });
    expect(toProviderError(openaiError(401, 'Incorrect API key'), openai).message).toContain('Check OPENAI_API_KEY');
    expect(toProviderError(openaiError(404, 'no such model'), openai)).toMatchObject({ code: 'provider_model_not_found' });
    expect(toProviderError(openaiError(500, 'oops'), openai)).toMatchObject({ code: 'provider_unavailable' });
  });

  it('recognises connection failures, timeouts and aborts of both SDKs (OpenAI leaves their name "Error")', () => {
    for (const [sdk, context] of [
      [Anthropic, anthropic],
      [OpenAI, openai],
    ] as const) {
      expect(toProviderError(new sdk.APIConnectionError({ message: 'Connection error.' }), context)).toMatchObject({
        code: 'provider_unreachable',
      });
      expect(toProviderError(new sdk.APIConnectionError({ message: 'Connection error.' }), context).message).toContain(
        `cannot connect to ${context.baseURL}`,
      );
      expect(toProviderError(new sdk.APIConnectionTimeoutError(), context)).toMatchObject({ code: 'provider_timeout' });
      expect(toProviderError(new sdk.APIConnectionTimeoutError(), context).message).toContain(
        `Raise providers.${context.provider}.timeoutMs`,
      );
      expect(toProviderError(new sdk.APIUserAbortError(), context)).toMatchObject({ code: 'cancelled' });
    }
    expect(toProviderError(new DOMException('This operation was aborted', 'AbortError'), openai)).toMatchObject({ code: 'cancelled' });
  });

  it("says why a connection failed, from the system error under the SDK's, and retries only what may pass", () => {
    // As the SDKs build them: their "Connection error." ← fetch's "fetch failed" ← the system's error.
    const connectionError = (code: string | undefined, message: string) =>
      new Anthropic.APIConnectionError({
        message: 'Connection error.',
        cause: new TypeError('fetch failed', { cause: Object.assign(new Error(message), code ? { code } : {}) }),
      });
    const context = { ...anthropic, baseURL: 'http://models.invalid:4000', baseURLEnv: 'ANTHROPIC_BASE_URL' };

    const notFound = toProviderError(connectionError('ENOTFOUND', 'getaddrinfo ENOTFOUND models.invalid'), context);
    expect(notFound.message).toBe(
      'anthropic (claude-test): cannot connect to http://models.invalid:4000: no host named "models.invalid" was found. ' +
        'Correct the host name in the base URL (model.baseURL or ANTHROPIC_BASE_URL), or check your network.',
    );
    expect(isRetryableError(notFound)).toBe(false);
    const badPort = toProviderError(connectionError(undefined, 'bad port'), context);
    expect(badPort.message).toContain('fetch refuses that port');
    expect(isRetryableError(badPort)).toBe(false);

    const reset = toProviderError(connectionError('ECONNRESET', 'read ECONNRESET'), context);
    expect(reset).toMatchObject({ code: 'provider_unreachable' });
    expect(reset.message).toContain('cannot connect to http://models.invalid:4000: read ECONNRESET. Check that the endpoint is running');
    expect(isRetryableError(reset)).toBe(true);
    // A DNS server that did not answer may answer next time.
    expect(isRetryableError(toProviderError(connectionError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN models.invalid'), context))).toBe(true);
  });

  it('says which key to check only when the provider has one', () => {
    expect(toProviderError(openaiError(401, 'no'), { provider: 'ollama', model: 'llama', baseURL: undefined }).message).toContain(
      'Check the API key.',
    );
  });

  it('passes a ProviderError through unchanged', () => {
    const original = new ProviderError('openai', 'gpt-test', 'no API key is set', 'Set OPENAI_API_KEY.', { code: 'provider_no_key' });
    expect(toProviderError(original, openai)).toBe(original);
  });
});

describe('retrying a stream', () => {
  it('retries a response that broke off, without an HTTP status', () => {
    const broken = toStreamError(new TypeError('terminated'), anthropic);

    expect(broken).toMatchObject({ code: 'provider_stream_interrupted' });
    expect(broken.message).toBe(
      'anthropic (claude-test): the response broke off mid-stream (terminated). It is usually temporary: try again.',
    );
    expect(isRetryableError(broken)).toBe(true);
    // An error event inside the stream (e.g. overloaded) carries no status either.
    expect(
      isRetryableError(
        toStreamError(
          Anthropic.APIError.generate(
            undefined,
            { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
            undefined,
            undefined,
          ),
          anthropic,
        ),
      ),
    ).toBe(true);
  });

  it('retries a failed request that may succeed later (Legion, not the SDK, owns every retry)', () => {
    expect(isRetryableError(toProviderError(anthropicError(503, 'overloaded_error', 'busy'), anthropic))).toBe(true);
    expect(isRetryableError(toProviderError(anthropicError(429, 'rate_limit_error', 'slow down'), anthropic))).toBe(true);
    expect(isRetryableError(toProviderError(new Anthropic.APIConnectionError({ message: 'Connection error.' }), anthropic))).toBe(true);
  });

  it('does not retry what cannot succeed, or what was cancelled', () => {
    expect(isRetryableError(toProviderError(anthropicError(401, 'authentication_error', 'bad key'), anthropic))).toBe(false);
    expect(
      isRetryableError(
        new ProviderError('openai', 'gpt-test', 'the "openai" package is not installed', 'Install it.', { code: 'provider_sdk_missing' }),
      ),
    ).toBe(false);
    expect(isRetryableError(toStreamError(new OpenAI.APIUserAbortError(), openai))).toBe(false);
    expect(isRetryableError(new TypeError('terminated'))).toBe(false);
  });
});
