/** Counts the tokens of a text; loaded once (`loadTokenCounter`), then synchronous. */
export type TokenCounter = (text: string) => number;

let counter: Promise<TokenCounter> | undefined;

/**
 * A real BPE tokenizer (gpt-tokenizer, cl100k_base), imported on first use: it costs
 * ~90 ms and tens of MB, so commands that never count (and turns far below every
 * threshold: see `tokenUpperBound`) never load it.
 */
export function loadTokenCounter(): Promise<TokenCounter> {
  counter ??= import('gpt-tokenizer/encoding/cl100k_base').then((tokenizer) => (text: string) => tokenizer.countTokens(text));
  return counter;
}

/**
 * A bound no tokenizer exceeds: every BPE token stands for at least one byte of
 * UTF-8. Below a threshold by this bound, a text is below it for sure, uncounted.
 */
export function tokenUpperBound(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
