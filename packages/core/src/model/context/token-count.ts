/** Counts the tokens of a text; loaded once (`loadTokenCounter`), then synchronous. */
export type TokenCounter = (text: string) => number;

let counter: Promise<TokenCounter> | undefined;

/**
 * A real BPE tokenizer (gpt-tokenizer, cl100k_base), imported on first use: it costs
 * ~90 ms and tens of MB, so commands that never count (and turns far below every
 * threshold: see `tokenUpperBound`) never load it.
 */
export function loadTokenCounter(): Promise<TokenCounter> {
  counter ??= import('gpt-tokenizer/encoding/cl100k_base').then(
    (tokenizer) =>
      // Every caller gets the counter that cuts long texts in pieces: one whole 2 MB run would take minutes.
      (text: string) => (text.length <= PIECE_MAX ? tokenizer.countTokens(text) : countTextTokens(tokenizer.countTokens, text)),
  );
  return counter;
}

/**
 * A bound no tokenizer exceeds: every BPE token stands for at least one byte of
 * UTF-8. Below a threshold by this bound, a text is below it for sure, uncounted.
 */
export function tokenUpperBound(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

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
