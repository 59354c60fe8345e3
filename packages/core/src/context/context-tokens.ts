import type { Message } from '../message.js';
import type { ModelRequest, ToolDefinition } from '../providers/llm-provider.js';
import { loadTokenCounter, tokenUpperBound, type TokenCounter } from './token-count.js';

/**
 * What compaction and the hard cap measure a request with: one small seam, so that
 * the token accounting (provider-reported usage plus an incremental delta) can take
 * its place. Messages are counted once each (they never change once appended).
 */
const counted = new WeakMap<Message, number>();
const bounded = new WeakMap<Message, number>();

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

/** Tool definitions are the same objects from step to step: each is measured once. */
const toolBounds = new WeakMap<ToolDefinition, number>();
const toolCounts = new WeakMap<ToolDefinition, number>();
let lastSystem = { text: '', bound: 0, count: -1 };

function measureFixed(request: Pick<ModelRequest, 'system' | 'tools'>, count: TokenCounter | undefined): number {
  if (lastSystem.text !== request.system) lastSystem = { text: request.system, bound: tokenUpperBound(request.system), count: -1 };
  if (count && lastSystem.count < 0) lastSystem.count = count(request.system);
  let total = count ? lastSystem.count : lastSystem.bound;
  const cache = count ? toolCounts : toolBounds;
  for (const tool of request.tools) {
    let tokens = cache.get(tool);
    if (tokens === undefined) {
      const text = JSON.stringify(tool);
      tokens = count ? count(text) : tokenUpperBound(text);
      cache.set(tool, tokens);
    }
    total += tokens;
  }
  return total;
}

/** Running bounds of histories that only grow (a conversation's loaded history): each step adds only its new messages. */
const historyBounds = new WeakMap<readonly Message[], { counted: number; sum: number }>();

/**
 * A bound no tokenizer exceeds, without loading one. `history`, when given, is the
 * growing array the request's messages were copied from: its bound is kept up to
 * date incrementally instead of summed again at every step.
 */
export function requestUpperBound(request: Pick<ModelRequest, 'system' | 'tools' | 'messages'>, history?: readonly Message[]): number {
  const fixed = measureFixed(request, undefined);
  if (!history || history.length !== request.messages.length) {
    let total = fixed;
    for (const message of request.messages) total += messageUpperBound(message);
    return total;
  }
  let running = historyBounds.get(history);
  if (!running || running.counted > history.length) {
    running = { counted: 0, sum: 0 };
    historyBounds.set(history, running);
  }
  for (; running.counted < history.length; running.counted++) running.sum += messageUpperBound(history[running.counted]!);
  return fixed + running.sum;
}

export function messageUpperBound(message: Message): number {
  let bound = bounded.get(message);
  if (bound === undefined) {
    bound = tokenUpperBound(messageText(message)) + PER_MESSAGE;
    bounded.set(message, bound);
  }
  return bound;
}

/** A token measure, loaded once: the tokenizer costs ~90 ms and tens of MB, so it is loaded only near a threshold. */
export interface TokenMeasure {
  message(message: Message): number;
  text(text: string): number;
  request(request: Pick<ModelRequest, 'system' | 'tools' | 'messages'>): number;
}

export async function loadTokenMeasure(): Promise<TokenMeasure> {
  const count: TokenCounter = await loadTokenCounter();
  const message = (entry: Message): number => {
    let tokens = counted.get(entry);
    if (tokens === undefined) {
      tokens = count(messageText(entry)) + PER_MESSAGE;
      counted.set(entry, tokens);
    }
    return tokens;
  };
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
