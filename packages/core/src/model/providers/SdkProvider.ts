import type { ModelConfig } from '../../team/index.js';
import type { LLMProvider, ModelRequest, StreamOptions, StreamPart } from './llm-provider.js';

export interface AttemptOptions {
  signal: AbortSignal;
  activity: () => void;
}
import { resolveProviderOptions, type ProviderOptions } from './provider-options.js';
import type { ProviderSettings } from './ProviderFactory.js';
import type { ProviderErrorContext } from './provider-errors.js';
import { streamWithRetries } from './stream-retry.js';

/**
 * What the SDK-backed providers share: key and endpoint resolved once, the SDK
 * client made on first use (the SDK itself loads lazily), and a stream that is
 * retried while it has yielded nothing.
 */
export abstract class SdkProvider<Client> implements LLMProvider {
  readonly name: string;
  readonly model: string;
  protected readonly options: ProviderOptions;
  private client: Promise<Client> | undefined;

  constructor(model: ModelConfig, settings: ProviderSettings, env: NodeJS.ProcessEnv = process.env) {
    this.options = resolveProviderOptions(model, settings, env);
    this.name = model.provider;
    this.model = model.model;
  }

  get baseURL(): string | undefined {
    return this.options.baseURL;
  }

  stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<StreamPart> {
    const { maxRetries, timeoutMs, idleTimeoutMs, maxRetryWaitMs } = this.options;
    return streamWithRetries(
      (signal, activity) => this.attempt(request, { signal, activity }),
      { retries: maxRetries, timeoutMs, idleTimeoutMs, maxRetryWaitMs },
      this.errorContext(),
      options,
    );
  }

  /** How errors name this provider: the endpoint and the variables that set its key and its address. */
  protected errorContext(): ProviderErrorContext {
    const { baseURL, preset } = this.options;
    return { provider: this.name, model: this.model, baseURL, apiKeyEnv: preset.apiKeyEnv, baseURLEnv: preset.baseURLEnv };
  }

  /** The exact body sent to the API (exposed for tests and debugging). */
  abstract requestBody(request: ModelRequest): Record<string, unknown>;

  /** One try: send the request with `signal` and translate the stream, calling `activity` for every event received. */
  protected abstract attempt(request: ModelRequest, options: AttemptOptions): AsyncIterable<StreamPart>;

  /** Loads the SDK and makes a client from `options`. */
  protected abstract createClient(): Promise<Client>;

  protected getClient(): Promise<Client> {
    this.client ??= this.createClient();
    return this.client;
  }
}
