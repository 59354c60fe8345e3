import type { ContentBlock, Message, Usage } from '../../kernel/index.js';

/** What a provider shows the model. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the input object. */
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  system: string;
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  maxTokens?: number | undefined;
  temperature?: number | undefined;
}

export type FinishReason = 'stop' | 'tool_use' | 'max_tokens' | 'refusal' | 'error' | 'other';

/** The typed parts a provider streams. A tool call arrives whole, its input parsed. */
export type StreamPart =
  | { type: 'text-delta'; text: string }
  | {
      type: 'tool-call';
      id: string;
      name: string;
      input: unknown;
      /** Set when the model's arguments were not valid JSON; the call gets an error result. */
      inputError?: string | undefined;
    }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: FinishReason };

export interface StreamOptions {
  signal?: AbortSignal | undefined;
  /** Told before each wait between attempts (so a UI can say the provider asked to wait). */
  onRetry?: ((retry: ProviderRetry) => void) | undefined;
}

/** A wait before the next attempt of a model call. */
export interface ProviderRetry {
  /** 1 for the first retry. */
  attempt: number;
  /** Retries allowed in all. */
  of: number;
  waitMs: number;
  /** What failed. */
  reason: string;
  /** Whether the wait is the provider's own `retry-after`. */
  askedByProvider: boolean;
}

/** A model behind one streaming call. */
export interface LLMProvider {
  readonly name: string;
  readonly model: string;
  /** The endpoint its calls go to, when set: a loopback address makes its model local (free unless priced in the config). */
  readonly baseURL?: string | undefined;
  stream(request: ModelRequest, options?: StreamOptions): AsyncIterable<StreamPart>;
}

export interface ModelResponse {
  content: ContentBlock[];
  usage?: Usage | undefined;
  finishReason: FinishReason;
  /** Tool calls whose arguments could not be parsed, by tool_use id. */
  inputErrors: Map<string, string>;
}

/**
 * What came of a call so far, kept by `generate` for its caller: a call that fails or is cancelled
 * after the model started answering was paid for, though the provider never reported its usage.
 */
export interface CallProgress {
  /** Some part of the answer arrived. */
  received: boolean;
  /** Characters of the answer so far (text, and tool calls' inputs). */
  outputChars: number;
}

/** The non-streaming result, derived from the stream. */
export async function generate(
  provider: LLMProvider,
  request: ModelRequest,
  options: StreamOptions & { onTextDelta?: (text: string) => void; progress?: CallProgress } = {},
): Promise<ModelResponse> {
  const progress = options.progress;
  const content: ContentBlock[] = [];
  const inputErrors = new Map<string, string>();
  let usage: Usage | undefined;
  let finishReason: FinishReason | undefined;
  let text = '';
  for await (const part of provider.stream(request, options)) {
    switch (part.type) {
      case 'text-delta':
        if (progress) {
          progress.received = true;
          progress.outputChars += part.text.length;
        }
        text += part.text;
        options.onTextDelta?.(part.text);
        break;
      case 'tool-call':
        if (progress) {
          progress.received = true;
          progress.outputChars += part.name.length + (part.input === undefined ? 0 : JSON.stringify(part.input).length);
        }
        if (text) {
          content.push({ type: 'text', text });
          text = '';
        }
        content.push({ type: 'tool_use', id: part.id, name: part.name, input: part.input ?? {} });
        if (part.inputError !== undefined) inputErrors.set(part.id, part.inputError);
        break;
      case 'usage':
        usage = usage
          ? Object.assign({}, usage, {
              inputTokens: usage.inputTokens + part.usage.inputTokens,
              outputTokens: usage.outputTokens + part.usage.outputTokens,
            })
          : part.usage;
        break;
      case 'finish':
        finishReason = part.reason;
        break;
    }
  }
  if (text) content.push({ type: 'text', text });
  const hasToolUse = content.some((block) => block.type === 'tool_use');
  if (usage) usage = soundUsage(usage);
  return { content, usage, finishReason: finishReason ?? (hasToolUse ? 'tool_use' : 'stop'), inputErrors };
}

/**
 * Token counts as the log and the budgets can hold them: a whole number from 0
 * to 2^53 - 1. A server that reports a negative, fractional, huge or missing
 * count (a hostile or broken gateway) would otherwise leave a record the ledger
 * cannot read back, a call no budget counts; an absurdly large one is kept as
 * the largest count, so a budget stops the next call rather than ignore it.
 */
export function soundUsage(usage: Usage): Usage {
  const sound: Usage = { inputTokens: tokenCount(usage.inputTokens), outputTokens: tokenCount(usage.outputTokens) };
  if (usage.cacheReadTokens !== undefined) sound.cacheReadTokens = tokenCount(usage.cacheReadTokens);
  if (usage.cacheWriteTokens !== undefined) sound.cacheWriteTokens = tokenCount(usage.cacheWriteTokens);
  if (usage.cacheWrite1hTokens !== undefined) sound.cacheWrite1hTokens = tokenCount(usage.cacheWrite1hTokens);
  return sound;
}

function tokenCount(value: unknown): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) return 0;
  return value >= Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : Math.round(value);
}
