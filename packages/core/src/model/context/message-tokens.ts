import type { ContentBlock, Message } from '../../kernel/index.js';
import { countTextTokens } from './text-tokens.js';
import type { TokenCounter } from './token-count.js';

/**
 * Tokens of one message as a model request carries it: the measure pruning
 * decides by. (When the token accounting lands, it takes this signature's place.)
 */
export type MeasureMessage = (message: Message) => number;

/** Per message and block: a block's text that was counted once is never counted again. */
const counted = new WeakMap<object, number>();
const bounded = new WeakMap<object, number>();
/** Roles, separators and block framing the wire adds around each message and block (an allowance, not a count). */
const MESSAGE_OVERHEAD = 4;
const BLOCK_OVERHEAD = 3;

function blockText(block: ContentBlock): string {
  if (block.type === 'text') return block.text;
  if (block.type === 'tool_result') return block.content;
  return `${block.name} ${JSON.stringify(block.input)}`;
}

/** Tokens of a block, counted once per block object (history blocks stay the same objects from step to step). */
export function blockTokens(block: ContentBlock, count: TokenCounter): number {
  let tokens = counted.get(block);
  if (tokens === undefined) counted.set(block, (tokens = countTextTokens(count, blockText(block)) + BLOCK_OVERHEAD));
  return tokens;
}

/** A measure of messages by a real tokenizer, incremental: what was counted at one step is not counted at the next. */
export function tokenMeasure(count: TokenCounter): MeasureMessage {
  return (message) => message.content.reduce((total, block) => total + blockTokens(block, count), MESSAGE_OVERHEAD);
}

/** A bound no count exceeds (UTF-8 bytes plus the allowances), without a tokenizer: to skip counting far below a threshold. */
export function messageUpperBound(message: Message): number {
  let bytes = bounded.get(message);
  if (bytes === undefined) {
    bytes = message.content.reduce(
      (total, block) => total + Buffer.byteLength(blockText(block), 'utf8') + BLOCK_OVERHEAD,
      MESSAGE_OVERHEAD,
    );
    bounded.set(message, bytes);
  }
  return bytes;
}
