import type { ContextSettings } from '../collective/context-schema.js';
import type { ContextUsage } from '../events/event-types.js';
import type { Message, Usage } from '../message.js';
import type { ModelRequest, ToolDefinition } from '../providers/llm-provider.js';
import { loadTokenCounter, tokenUpperBound, type TokenCounter } from './token-count.js';

/** What a request carries into the model's window; a `ModelRequest` is one. */
export type ContextParts = Pick<ModelRequest, 'system' | 'tools' | 'messages'>;

/** The measure's figures (declared with the `context:usage` event that carries them). */
export type { ContextUsage };

export interface MeasureOptions {
  /** The tokenizer to count with (default: gpt-tokenizer's cl100k_base, loaded on first need). */
  countTokens?: TokenCounter | undefined;
  /** Count even far below every threshold (a report asked for), never the byte bound. */
  exact?: boolean | undefined;
  /**
   * Below this byte bound nothing is counted (default: the smallest threshold of the settings).
   * The per-request `context:usage` report passes the window's limit: a report is no reason to
   * load the tokenizer into every `legion run` whose tool definitions alone pass a prune threshold.
   */
  boundedBelow?: number | undefined;
}

/** Role and framing tokens the chat formats add around each message (OpenAI's cookbook counts 3–4). */
const MESSAGE_FRAMING_TOKENS = 4;

interface Counted {
  bytes: number;
  tokens: number;
  counter: TokenCounter | undefined;
}

// Per message object: its byte bound and, once counted, its tokens. A WeakMap, so a message
// dropped with its conversation takes its entry along; the history is never re-tokenized.
const messageCounts = new WeakMap<Message, Counted>();
// Tool definitions are cached per tool (`toolDefinition`), so mostly per object is per content.
const toolCounts = new WeakMap<ToolDefinition, Counted>();
const toolTextCounts = new Map<string, Counted>();
const TOOL_TEXTS_KEPT = 512;
// System prompts are built per turn: counted by content, a few kept.
const systemCounts = new Map<string, Counted>();
const SYSTEM_PROMPTS_KEPT = 64;

// What was sent: for each message of a sent request, the message before it there (null: the first),
// and for its last message, the bytes of the system prompt and tools that went with it. A reply's
// usage is the truth only for a view whose messages before it are exactly those (no pruning,
// compaction or trimming since) and whose system prompt and tools are the same size.
const sentAfter = new WeakMap<Message, Message | null>();
const sentWithOverhead = new WeakMap<Message, number>();

function textOfMessage(message: Message): string {
  let text = '';
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use') text += `${block.name} ${JSON.stringify(block.input ?? {})}`;
    else text += block.content;
  }
  return text;
}

function entryOf(message: Message): Counted {
  let entry = messageCounts.get(message);
  if (!entry) {
    entry = { bytes: tokenUpperBound(textOfMessage(message)) + MESSAGE_FRAMING_TOKENS, tokens: 0, counter: undefined };
    messageCounts.set(message, entry);
  }
  return entry;
}

function toolEntryOf(tool: ToolDefinition): Counted {
  let entry = toolCounts.get(tool);
  if (!entry) {
    // A definition built anew per step (the load_tools catalogue) is found by its content, and counted once.
    const text = JSON.stringify(tool);
    entry = toolTextCounts.get(text);
    if (!entry) {
      if (toolTextCounts.size >= TOOL_TEXTS_KEPT) toolTextCounts.delete(toolTextCounts.keys().next().value as string);
      entry = { bytes: tokenUpperBound(text), tokens: 0, counter: undefined };
      toolTextCounts.set(text, entry);
    }
    toolCounts.set(tool, entry);
  }
  return entry;
}

function systemEntryOf(system: string): Counted {
  let entry = systemCounts.get(system);
  if (!entry) {
    if (systemCounts.size >= SYSTEM_PROMPTS_KEPT) systemCounts.delete(systemCounts.keys().next().value as string);
    entry = { bytes: tokenUpperBound(system), tokens: 0, counter: undefined };
    systemCounts.set(system, entry);
  }
  return entry;
}

/** Stores a count on its entry; the text is built again only to be counted (kept, it would double the history in memory). */
function counted(entry: Counted, counter: TokenCounter, tokens: number): number {
  entry.tokens = tokens;
  entry.counter = counter;
  return tokens;
}

let defaultCounter: TokenCounter | undefined;

/** Tokens the reply's request filled (input, cache read and write) and the reply's own output tokens. */
export function reportedContextTokens(usage: Usage): number {
  return usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0) + usage.outputTokens;
}

/** The index of the last reply whose reported usage covers the messages before it, or -1. */
function trustedReplyIndex(parts: ContextParts, overheadBytes: number): number {
  const { messages } = parts;
  let index = messages.length - 1;
  while (index >= 0 && !(messages[index]!.role === 'assistant' && messages[index]!.usage)) index--;
  if (index < 1) return -1;
  if (sentWithOverhead.get(messages[index - 1]!) !== overheadBytes) return -1;
  for (let position = 0; position < index; position++) {
    if (sentAfter.get(messages[position]!) !== (position === 0 ? null : messages[position - 1])) return -1;
  }
  return index;
}

/**
 * The tokens of a model request. The provider's report is the truth for what it was sent: the
 * last reply carries its usage, so only the messages after it are counted; without a usable
 * report (the first request of a process, or a view changed by pruning or compaction since) all
 * of it is. Each message, tool definition and system prompt is counted once and remembered, and
 * nothing is counted (nor the tokenizer loaded) while the request's byte bound is below the
 * smallest threshold of `settings` (prune, summarize, window − reserve).
 *
 * Measuring does not record the request as sent; `recordSentRequest` does, for the one sent.
 */
export async function measureContext(parts: ContextParts, settings: ContextSettings, options: MeasureOptions = {}): Promise<ContextUsage> {
  const limit = settings.window - settings.outputReserve;
  const smallestThreshold = options.boundedBelow ?? Math.min(settings.pruneAtTokens, settings.summarizeAtTokens, limit);
  const system = systemEntryOf(parts.system);
  let toolBytes = 0;
  for (const tool of parts.tools) toolBytes += toolEntryOf(tool).bytes;
  const overheadBytes = system.bytes + toolBytes;
  const reply = trustedReplyIndex(parts, overheadBytes);
  const fromProvider = reply >= 0 ? reportedContextTokens(parts.messages[reply]!.usage!) : 0;
  const firstEstimated = reply >= 0 ? reply + 1 : 0;

  let estimatedBytes = reply >= 0 ? 0 : overheadBytes;
  for (let index = firstEstimated; index < parts.messages.length; index++) estimatedBytes += entryOf(parts.messages[index]!).bytes;
  if (!options.exact && fromProvider + estimatedBytes <= smallestThreshold) {
    const total = fromProvider + estimatedBytes;
    return { total, system: system.bytes, tools: toolBytes, messages: Math.max(0, total - overheadBytes), fromProvider, estimated: estimatedBytes, bounded: true, limit };
  }

  const counter = options.countTokens ?? (defaultCounter ??= await loadTokenCounter());
  const systemTokens = system.counter === counter ? system.tokens : counted(system, counter, counter(parts.system));
  let toolTokens = 0;
  for (const tool of parts.tools) {
    const entry = toolEntryOf(tool);
    toolTokens += entry.counter === counter ? entry.tokens : counted(entry, counter, counter(JSON.stringify(tool)));
  }
  let estimated = reply >= 0 ? 0 : systemTokens + toolTokens;
  for (let index = firstEstimated; index < parts.messages.length; index++) {
    const message = parts.messages[index]!;
    const entry = entryOf(message);
    estimated += entry.counter === counter ? entry.tokens : counted(entry, counter, counter(textOfMessage(message)) + MESSAGE_FRAMING_TOKENS);
  }
  const total = fromProvider + estimated;
  return { total, system: systemTokens, tools: toolTokens, messages: Math.max(0, total - systemTokens - toolTokens), fromProvider, estimated, bounded: false, limit };
}

/**
 * Records a request as the one sent to the model, so the usage its reply reports is trusted for
 * these messages in the next measure. The request builder calls it for the final request only.
 */
export function recordSentRequest(parts: ContextParts): void {
  const { messages } = parts;
  let previous: Message | null = null;
  for (const message of messages) {
    // A get is cheaper than a set, and most of the history was sent the same way a step ago.
    if (sentAfter.get(message) !== previous) sentAfter.set(message, previous);
    previous = message;
  }
  if (previous) {
    let toolBytes = 0;
    for (const tool of parts.tools) toolBytes += toolEntryOf(tool).bytes;
    sentWithOverhead.set(previous, systemEntryOf(parts.system).bytes + toolBytes);
  }
}
