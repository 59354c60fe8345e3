import type AnthropicClient from '@anthropic-ai/sdk';
import type { Usage } from '../../../kernel/index.js';
import type { ModelRequest, StreamPart } from '../llm-provider.js';
import { loadSdk } from '../lazy-sdk.js';
import { redirectSafeFetch } from '../redirect-safe-fetch.js';
import { cancelledError, emptyResponseError, notAStreamError, toProviderError, toStreamError } from '../provider-errors.js';
import { SdkProvider, type AttemptOptions } from '../SdkProvider.js';
import { parseToolArguments } from '../stream-retry.js';
import { fromAnthropicStopReason, toAnthropicMessages, toAnthropicTools } from './anthropic-translator.js';

const DEFAULT_MAX_TOKENS = 8192;

/** Claude through `@anthropic-ai/sdk` (Messages API, streaming, tool use). */
export class AnthropicProvider extends SdkProvider<AnthropicClient> {
  requestBody(request: ModelRequest): Record<string, unknown> {
    return {
      model: this.model,
      max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
      ...(request.system ? { system: request.system } : {}),
      messages: toAnthropicMessages(request.messages),
      ...(request.tools.length > 0 ? { tools: toAnthropicTools(request.tools) } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      stream: true,
    };
  }

  protected async *attempt(request: ModelRequest, options: AttemptOptions): AsyncIterable<StreamPart> {
    const client = await this.getClient();
    const errorContext = { ...this.errorContext(), baseURL: this.options.baseURL ?? client.baseURL };
    let events: AsyncIterable<AnthropicStreamEvent>;
    try {
      const { data, response } = await client.messages
        .create(this.requestBody(request) as never, { signal: options.signal })
        .withResponse();
      // A proxy's login page or an empty body with status 200 is not an answer, whatever the SDK would make of it.
      if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) throw await notAStreamError(response, errorContext);
      events = data as unknown as AsyncIterable<AnthropicStreamEvent>;
    } catch (error) {
      throw toProviderError(error, errorContext);
    }
    let started = false;
    const usage: Usage = { inputTokens: 0, outputTokens: 0 };
    const toolBlocks = new Map<number, { id: string; name: string; json: string }>();
    let stopReason: string | null | undefined;
    try {
      for await (const event of events) {
        options.activity();
        switch (event.type) {
          case 'message_start': {
            started = true;
            const start = event.message.usage;
            usage.inputTokens = start.input_tokens ?? 0;
            usage.outputTokens = start.output_tokens ?? 0;
            if (start.cache_read_input_tokens) usage.cacheReadTokens = start.cache_read_input_tokens;
            if (start.cache_creation_input_tokens) usage.cacheWriteTokens = start.cache_creation_input_tokens;
            // Hour-long cache writes cost more than 5-minute ones: kept apart so they are priced as such.
            if (start.cache_creation?.ephemeral_1h_input_tokens) usage.cacheWrite1hTokens = start.cache_creation.ephemeral_1h_input_tokens;
            break;
          }
          case 'content_block_start':
            if (event.content_block.type === 'tool_use') {
              toolBlocks.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: '' });
            } else if (event.content_block.type === 'text' && event.content_block.text) {
              yield { type: 'text-delta', text: event.content_block.text };
            }
            break;
          case 'content_block_delta':
            if (event.delta.type === 'text_delta') yield { type: 'text-delta', text: event.delta.text };
            else if (event.delta.type === 'input_json_delta') {
              const block = toolBlocks.get(event.index);
              if (block) block.json += event.delta.partial_json;
            }
            break;
          case 'content_block_stop': {
            const block = toolBlocks.get(event.index);
            if (block) {
              toolBlocks.delete(event.index);
              yield { type: 'tool-call', id: block.id, name: block.name, ...parseToolArguments(block.json) };
            }
            break;
          }
          case 'message_delta':
            stopReason = event.delta.stop_reason ?? stopReason;
            if (event.usage?.output_tokens !== undefined && event.usage.output_tokens !== null)
              usage.outputTokens = event.usage.output_tokens;
            if (event.usage?.input_tokens) usage.inputTokens = event.usage.input_tokens;
            break;
          default:
            break;
        }
      }
    } catch (error) {
      throw toStreamError(error, errorContext);
    }
    // The SDKs end a stream quietly when it is aborted: what arrived so far is not a finished response.
    if (options.signal.aborted) throw cancelledError(errorContext, options.signal.reason);
    if (!started) throw emptyResponseError(errorContext, 'a stream without a message');
    // A tool block still open here was cut off (max_tokens): hand it over so it gets an error result.
    for (const block of toolBlocks.values()) yield { type: 'tool-call', id: block.id, name: block.name, ...parseToolArguments(block.json) };
    yield { type: 'usage', usage };
    yield { type: 'finish', reason: fromAnthropicStopReason(stopReason) };
  }

  protected createClient(): Promise<AnthropicClient> {
    return loadSdk('@anthropic-ai/sdk', { provider: this.name, model: this.model }, () => import('@anthropic-ai/sdk')).then(
      (sdk) =>
        new sdk.default({
          apiKey: this.options.apiKey ?? null,
          ...(this.options.baseURL ? { baseURL: this.options.baseURL } : {}),
          timeout: this.options.timeoutMs,
          // Legion's own loop retries (capped, cancellable, reported); the SDK's would sleep out any retry-after unseen.
          maxRetries: 0,
          // Node's fetch, but a redirect to another host gets no key (redirect-safe-fetch.ts).
          fetch: redirectSafeFetch,
        }),
    );
  }
}

/** The stream events we read; structural so the SDK's types stay a dev-time concern. */
type AnthropicStreamEvent =
  | {
      type: 'message_start';
      message: {
        usage: {
          input_tokens?: number;
          output_tokens?: number;
          cache_read_input_tokens?: number | null;
          cache_creation_input_tokens?: number | null;
          cache_creation?: { ephemeral_1h_input_tokens?: number | null } | null;
        };
      };
    }
  | { type: 'content_block_start'; index: number; content_block: { type: string; id: string; name: string; text?: string } }
  | {
      type: 'content_block_delta';
      index: number;
      delta: { type: 'text_delta'; text: string } | { type: 'input_json_delta'; partial_json: string } | { type: 'other' };
    }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta';
      delta: { stop_reason?: string | null };
      usage?: { output_tokens?: number | null; input_tokens?: number | null };
    }
  | { type: 'message_stop' };
