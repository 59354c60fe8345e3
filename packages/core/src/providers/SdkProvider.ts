import type { ModelConfig } from '../collective/participant.js';
import type { LLMProvider, ModelRequest, StreamOptions, StreamPart } from './llm-provider.js';
import { resolveProviderOptions, type ProviderOptions } from './provider-options.js';
import type { ProviderSettings } from './ProviderFactory.js';
import { retryUntilFirstPart } from './stream-retry.js';

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

  stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<StreamPart> {
    return retryUntilFirstPart(() => this.attempt(request, options), { retries: this.options.maxRetries, signal: options.signal });
  }

  /** The exact body sent to the API (exposed for tests and debugging). */
  abstract requestBody(request: ModelRequest): Record<string, unknown>;

  /** One try: send the request and translate the stream. */
  protected abstract attempt(request: ModelRequest, options: StreamOptions): AsyncIterable<StreamPart>;

  /** Loads the SDK and makes a client from `options`. */
  protected abstract createClient(): Promise<Client>;

  protected getClient(): Promise<Client> {
    this.client ??= this.createClient();
    return this.client;
  }
}
