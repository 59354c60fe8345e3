import type { ContextSettings } from '../../team/index.js';
import type { ContextUsage, Message, Usage } from '../../kernel/index.js';
import type { ModelRequest, ToolDefinition } from '../providers/llm-provider.js';
import { messageTokens, messageUpperBound } from './context-tokens.js';
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
  /** The conversation context whose last sent request (`recordSentRequest`) the reported usage is taken from. */
  sentFor?: object | undefined;
}

interface Counted {
  bytes: number;
  tokens: number;
  counter: TokenCounter | undefined;
}

// Tool definitions are cached per tool (`toolDefinition`), so mostly per object is per content.
const toolCounts = new WeakMap<ToolDefinition, Counted>();
const toolTextCounts = new Map<string, Counted>();
const TOOL_TEXTS_KEPT = 512;
// System prompts are built per turn: counted by content, a few kept.
const systemCounts = new Map<string, Counted>();
const SYSTEM_PROMPTS_KEPT = 64;

/**
 * The last request sent for one conversation context: its messages (the request's own array, no
 * copy: a request is built anew at every step, and the conversation keeps the messages anyway), how
 * many, and the bytes of the system prompt and tools that went with them. A reply's usage is the
 * truth only for a view that begins with exactly those messages (no pruning, compaction or trimming
 * since) and carries a system prompt and tools of the same size. One small record per conversation,
 * replaced at every step: nothing is kept per message.
 */
interface SentRequest {
  messages: readonly Message[];
  count: number;
  overheadBytes: number;
}
const lastSent = new WeakMap<object, SentRequest>();
/** The record of callers that name no conversation (one sequence of requests). */
const UNNAMED = {};

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

function overheadBytesOf(parts: Pick<ContextParts, 'system' | 'tools'>): number {
  let bytes = systemEntryOf(parts.system).bytes;
  for (const tool of parts.tools) bytes += toolEntryOf(tool).bytes;
  return bytes;
}

let defaultCounter: TokenCounter | undefined;

/** Tokens the reply's request filled (input, cache read and write) and the reply's own output tokens. */
export function reportedContextTokens(usage: Usage): number {
  return usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0) + usage.outputTokens;
}

/**
 * The index of the reply to the last request sent, when its reported usage covers the messages
 * before it here; else -1. A reply that reports no input (some local servers send zeros) is no report.
 */
function trustedReplyIndex(parts: ContextParts, overheadBytes: number, sent: SentRequest | undefined): number {
  if (!sent || sent.count < 1 || sent.overheadBytes !== overheadBytes) return -1;
  const { messages } = parts;
  const reply = messages[sent.count];
  if (!reply || reply.role !== 'assistant' || !reportsInput(reply)) return -1;
  // One comparison of references per message in the common case: the history's messages are the same objects from step to step.
  const sentMessages = sent.messages;
  for (let index = 0; index < sent.count; index++) {
    const message = messages[index]!;
    const sentMessage = sentMessages[index]!;
    if (message !== sentMessage && !sameMessage(message, sentMessage)) return -1;
  }
  return sent.count;
}

/** A reply that says what its request filled: usage with some input (some local servers send zeros, or nothing). */
function reportsInput(reply: Pick<Message, 'usage'>): boolean {
  return reply.usage !== undefined && reportedContextTokens(reply.usage) - reply.usage.outputTokens > 0;
}

/**
 * The same message as sent: the same object, or (the carried-over state is put in front of the first
 * message anew for every request) the same id, role and blocks, texts equal.
 */
function sameMessage(message: Message, sent: Message): boolean {
  if (message === sent) return true;
  if (message.id !== sent.id || message.role !== sent.role || message.content.length !== sent.content.length) return false;
  return message.content.every((block, index) => {
    const other = sent.content[index]!;
    return block === other || (block.type === 'text' && other.type === 'text' && block.text === other.text);
  });
}

/**
 * The tokens of a model request: the one measure the relief stages (compaction, the hard cap) and
 * the `context:usage` report decide by. The provider's report is the truth for what it was sent:
 * the reply to the last request sent for this conversation (`sentFor`, recorded by
 * `recordSentRequest`) carries its usage, so only the messages after it are counted; without a
 * usable report (the first request of a process, a provider that reports none, or a view changed
 * by pruning or compaction since) all of it is. Each message, tool definition and system prompt is
 * counted once and remembered, and nothing is counted (nor the tokenizer loaded) while the
 * request's byte bound (the reported figure plus the bytes since) is below the smallest threshold
 * of `settings` (prune, summarize, window − reserve), or `boundedBelow`.
 */
export async function measureContext(parts: ContextParts, settings: ContextSettings, options: MeasureOptions = {}): Promise<ContextUsage> {
  const limit = settings.window - settings.outputReserve;
  const smallestThreshold = options.boundedBelow ?? Math.min(settings.pruneAtTokens, settings.summarizeAtTokens, limit);
  const system = systemEntryOf(parts.system);
  let toolBytes = 0;
  for (const tool of parts.tools) toolBytes += toolEntryOf(tool).bytes;
  const overheadBytes = system.bytes + toolBytes;
  const reply = trustedReplyIndex(parts, overheadBytes, lastSent.get(options.sentFor ?? UNNAMED));
  const fromProvider = reply >= 0 ? reportedContextTokens(parts.messages[reply]!.usage!) : 0;
  const firstEstimated = reply >= 0 ? reply + 1 : 0;

  let estimatedBytes = reply >= 0 ? 0 : overheadBytes;
  for (let index = firstEstimated; index < parts.messages.length; index++) estimatedBytes += messageUpperBound(parts.messages[index]!);
  if (!options.exact && fromProvider + estimatedBytes <= smallestThreshold) {
    const total = fromProvider + estimatedBytes;
    return {
      total,
      system: system.bytes,
      tools: toolBytes,
      messages: Math.max(0, total - overheadBytes),
      fromProvider,
      estimated: estimatedBytes,
      bounded: true,
      limit,
    };
  }

  const counter = options.countTokens ?? (defaultCounter ??= await loadTokenCounter());
  const systemTokens = system.counter === counter ? system.tokens : counted(system, counter, counter(parts.system));
  let toolTokens = 0;
  for (const tool of parts.tools) {
    const entry = toolEntryOf(tool);
    toolTokens += entry.counter === counter ? entry.tokens : counted(entry, counter, counter(JSON.stringify(tool)));
  }
  let estimated = reply >= 0 ? 0 : systemTokens + toolTokens;
  for (let index = firstEstimated; index < parts.messages.length; index++) estimated += messageTokens(parts.messages[index]!, counter);
  const total = fromProvider + estimated;
  return {
    total,
    system: systemTokens,
    tools: toolTokens,
    messages: Math.max(0, total - systemTokens - toolTokens),
    fromProvider,
    estimated,
    bounded: false,
    limit,
  };
}

/**
 * Records a request as the last one sent for a conversation context (`sentFor`; the same key
 * `measureContext` is given), so the usage its reply reports is trusted for these messages in the
 * next measure. The request builder calls it for every request it sends: it costs one small record
 * per conversation, replaced each time.
 */
export function recordSentRequest(parts: ContextParts, sentFor: object = UNNAMED): void {
  lastSent.set(sentFor, { messages: parts.messages, count: parts.messages.length, overheadBytes: overheadBytesOf(parts) });
}

/**
 * Told the reply to the last request sent for `sentFor`: a reply that reports no input (a provider that
 * reports none, or zeros) makes its record useless, so it is dropped at once. With such a provider
 * nothing is kept per conversation between requests (bench/memory-runs.mjs runs thousands of them).
 */
export function settleSentRequest(sentFor: object, reply: Pick<Message, 'role' | 'usage'>): void {
  if (!reportsInput(reply)) lastSent.delete(sentFor);
}
