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

/** What `listUpperBound` summed of a list: its length then, the total, and its last message (a list cut and grown again is summed anew). */
interface ListBound {
  length: number;
  total: number;
  last: Message | undefined;
}
const listBounds = new WeakMap<readonly Message[], ListBound>();

/**
 * `messageUpperBound` summed over a list, kept per list object. A conversation's loaded history is
 * one array that only grows at its end (`ConversationHistory` pushes, and replaces the array when it
 * compacts or reloads), and it is bounded at every step: from one step to the next only the
 * messages appended since are added, so a step's cost does not grow with the conversation. Any
 * other list is summed whole the first time, and kept the same way.
 */
export function listUpperBound(messages: readonly Message[]): number {
  const known = listBounds.get(messages);
  let from = 0;
  let total = 0;
  if (known && known.length <= messages.length && (known.length === 0 || messages[known.length - 1] === known.last)) {
    from = known.length;
    total = known.total;
  }
  for (let index = from; index < messages.length; index++) total += messageUpperBound(messages[index]!);
  const last = messages[messages.length - 1];
  if (known) {
    known.length = messages.length;
    known.total = total;
    known.last = last;
  } else listBounds.set(messages, { length: messages.length, total, last });
  return total;
}
