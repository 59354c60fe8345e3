import type OpenAIClient from 'openai';
import type { Usage } from '../../../kernel/index.js';
import type { FinishReason, ModelRequest, StreamPart } from '../llm-provider.js';
import { loadSdk } from '../lazy-sdk.js';
import { redirectSafeFetch } from '../redirect-safe-fetch.js';
import { cancelledError, emptyResponseError, notAStreamError, toProviderError, toStreamError } from '../provider-errors.js';
import { SdkProvider, type AttemptOptions } from '../SdkProvider.js';
import { parseToolArguments } from '../stream-retry.js';
import { fromOpenAIFinishReason, toOpenAIMessages, toOpenAITools } from './openai-translator.js';

/**
 * OpenAI's Chat Completions through the `openai` SDK, and every endpoint that
 * speaks it (Ollama, vLLM, LM Studio, llama.cpp, OpenRouter) through a base URL.
 */
export class OpenAIProvider extends SdkProvider<OpenAIClient> {
  requestBody(request: ModelRequest): Record<string, unknown> {
    const maxTokensField = this.options.preset.maxTokensField ?? 'max_tokens';
    return {
      model: this.model,
      messages: toOpenAIMessages(request.system, request.messages),
      ...(request.tools.length > 0 ? { tools: toOpenAITools(request.tools) } : {}),
      ...(request.maxTokens !== undefined ? { [maxTokensField]: request.maxTokens } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      stream: true,
      stream_options: { include_usage: true },
    };
  }

  protected async *attempt(request: ModelRequest, options: AttemptOptions): AsyncIterable<StreamPart> {
    const client = await this.getClient();
    const errorContext = { ...this.errorContext(), baseURL: this.options.baseURL ?? client.baseURL };
    let chunks: AsyncIterable<OpenAIChunk>;
    try {
      const { data, response } = await client.chat.completions
        .create(this.requestBody(request) as never, { signal: options.signal })
        .withResponse();
      // A proxy's login page or an empty body with status 200 is not an answer, whatever the SDK would make of it.
      if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) throw await notAStreamError(response, errorContext);
      chunks = data as unknown as AsyncIterable<OpenAIChunk>;
    } catch (error) {
      throw toProviderError(error, errorContext);
    }
    let received = 0;
    const calls = new Map<number, { id: string; name: string; json: string }>();
    let usage: Usage | undefined;
    let finish: FinishReason | undefined;
    try {
      for await (const chunk of chunks) {
        options.activity();
        received++;
        if (chunk.usage) {
          // OpenAI counts cached prompt tokens inside prompt_tokens; Legion, like Anthropic, keeps them apart.
          const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
          usage = { inputTokens: Math.max((chunk.usage.prompt_tokens ?? 0) - cached, 0), outputTokens: chunk.usage.completion_tokens ?? 0 };
          if (cached) usage.cacheReadTokens = cached;
        }
        for (const choice of chunk.choices ?? []) {
          const delta = choice.delta ?? {};
          if (delta.content) yield { type: 'text-delta', text: delta.content };
          if (delta.refusal) yield { type: 'text-delta', text: delta.refusal };
          for (const call of delta.tool_calls ?? []) {
            // Some servers (older Ollama) omit `index`: a new id then starts a new call, else it continues the last one.
            const index =
              call.index ??
              (call.id && ![...calls.values()].some((existing) => existing.id === call.id) ? calls.size : Math.max(calls.size - 1, 0));
            let entry = calls.get(index);
            if (!entry) {
              entry = { id: call.id ?? `call_${index}`, name: '', json: '' };
              calls.set(index, entry);
            }
            if (call.id) entry.id = call.id;
            if (call.function?.name) entry.name += call.function.name;
            if (call.function?.arguments) entry.json += call.function.arguments;
          }
          if (choice.finish_reason) finish = fromOpenAIFinishReason(choice.finish_reason);
          if (delta.refusal && !finish) finish = 'refusal';
        }
      }
    } catch (error) {
      throw toStreamError(error, errorContext);
    }
    // The SDKs end a stream quietly when it is aborted: what arrived so far is not a finished response.
    if (options.signal.aborted) throw cancelledError(errorContext, options.signal.reason);
    if (received === 0) throw emptyResponseError(errorContext, 'a stream without a single chunk');
    for (const [, call] of [...calls.entries()].sort(([a], [b]) => a - b)) {
      yield { type: 'tool-call', id: call.id, name: call.name, ...parseToolArguments(call.json) };
    }
    if (usage) yield { type: 'usage', usage };
    yield { type: 'finish', reason: finish ?? (calls.size > 0 ? 'tool_use' : 'stop') };
  }

  protected createClient(): Promise<OpenAIClient> {
    return loadSdk('openai', { provider: this.name, model: this.model }, () => import('openai')).then(
      (sdk) =>
        new sdk.default({
          // Local servers need no key, but the SDK insists on one.
          apiKey: this.options.apiKey ?? 'not-needed',
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

/** The chunk fields we read; structural so the SDK's types stay a dev-time concern. */
interface OpenAIChunk {
  choices?: Array<{
    delta?: {
      content?: string | null;
      refusal?: string | null;
      tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
    };
    finish_reason?: string | null;
  }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } } | null;
}
