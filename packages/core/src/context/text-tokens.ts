import { loadTokenCounter, tokenUpperBound, type TokenCounter } from './token-count.js';

/** Pieces are cut at whitespace after this many characters, when there is some. */
const PIECE_MIN = 256;
/** And at most this long, whitespace or not. */
const PIECE_MAX = 512;

/**
 * Counts a text in pieces of at most 512 characters, cut at whitespace where
 * there is some. BPE is quadratic in the length of one whitespace-free run:
 * 2 MB of one character takes minutes counted whole, and 10 ms per thousand
 * characters in pieces. A cut inside a word may count a token more or less:
 * a measure for thresholds, not a bill.
 * Stops early, returning what it has, once the count passes `stopAbove`.
 */
export function countTextTokens(count: TokenCounter, text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let total = 0;
  let start = 0;
  while (start < text.length && total <= stopAbove) {
    let end = Math.min(text.length, start + PIECE_MAX);
    if (end < text.length) {
      const space = lastWhitespace(text, start + PIECE_MIN, end);
      if (space >= 0) end = space + 1;
    }
    total += count(text.slice(start, end));
    start = end;
  }
  return total;
}

function lastWhitespace(text: string, from: number, to: number): number {
  for (let index = to - 1; index >= from; index--) {
    const code = text.charCodeAt(index);
    if (code === 10 || code === 32 || code === 9 || code === 13) return index;
  }
  return -1;
}

/**
 * Whether a text holds more than `limit` tokens, loading the tokenizer only
 * when its byte size says it may (a text of fewer bytes than `limit` cannot).
 */
export async function exceedsTokens(text: string, limit: number): Promise<boolean> {
  if (tokenUpperBound(text) <= limit) return false;
  return countTextTokens(await loadTokenCounter(), text, limit) > limit;
}
