import type { Message } from '../../kernel/index.js';
import type { ModelRequest, ToolDefinition } from '../providers/llm-provider.js';
import { loadTokenCounter, tokenUpperBound, type TokenCounter } from './token-count.js';

/**
 * Token counts of messages, system prompts and tool definitions, each counted once (messages never
 * change once appended): what the token accounting (`measureContext`), the hard cap and compaction
 * count with. Which figure decides (the provider's report or a count) is `measureContext`'s call.
 */
const bounded = new WeakMap<Message, number>();
/** Tokens per message, per tokenizer (the default one in practice; tests bring their own). */
const countedBy = new WeakMap<TokenCounter, WeakMap<Message, number>>();

/** A few tokens of framing per message (role, separators), as the providers bill them. */
const PER_MESSAGE = 4;

/** Every text of a message the model reads, in one string. */
export function messageText(message: Pick<Message, 'content'>): string {
  let text = '';
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use') text += `${block.name} ${JSON.stringify(block.input)}`;
    else text += block.content;
  }
  return text;
}

/** Tool definitions are the same objects from step to step: each is counted once. */
const toolCounts = new WeakMap<ToolDefinition, number>();
let lastSystem = { text: '', count: -1 };

function measureFixed(request: Pick<ModelRequest, 'system' | 'tools'>, count: TokenCounter): number {
  if (lastSystem.text !== request.system || lastSystem.count < 0) lastSystem = { text: request.system, count: count(request.system) };
  let total = lastSystem.count;
  for (const tool of request.tools) {
    let tokens = toolCounts.get(tool);
    if (tokens === undefined) {
      tokens = count(JSON.stringify(tool));
      toolCounts.set(tool, tokens);
    }
    total += tokens;
  }
  return total;
}

/** A bound no count exceeds (UTF-8 bytes, framing included), without a tokenizer; kept per message. */
export function messageUpperBound(message: Message): number {
  let bound = bounded.get(message);
  if (bound === undefined) {
    bound = tokenUpperBound(messageText(message)) + PER_MESSAGE;
    bounded.set(message, bound);
  }
  return bound;
}

/** A message's tokens by `count` (framing included), counted once per message and tokenizer. */
export function messageTokens(message: Message, count: TokenCounter): number {
  let counts = countedBy.get(count);
  if (!counts) countedBy.set(count, (counts = new WeakMap()));
  let tokens = counts.get(message);
  if (tokens === undefined) {
    tokens = count(messageText(message)) + PER_MESSAGE;
    counts.set(message, tokens);
  }
  return tokens;
}

/** A token measure, loaded once: the tokenizer costs ~90 ms and tens of MB, so it is loaded only near a threshold. */
export interface TokenMeasure {
  message(message: Message): number;
  text(text: string): number;
  request(request: Pick<ModelRequest, 'system' | 'tools' | 'messages'>): number;
}

export async function loadTokenMeasure(): Promise<TokenMeasure> {
  const count: TokenCounter = await loadTokenCounter();
  const message = (entry: Message): number => messageTokens(entry, count);
  return {
    message,
    text: count,
    request: (request) => {
      let total = measureFixed(request, count);
      for (const entry of request.messages) total += message(entry);
      return total;
    },
  };
}
