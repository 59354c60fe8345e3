import { countTextTokens, loadTokenCounter, tokenUpperBound } from './token-count.js';

export { countTextTokens };

/**
 * Whether a text holds more than `limit` tokens, loading the tokenizer only
 * when its byte size says it may (a text of fewer bytes than `limit` cannot).
 */
export async function exceedsTokens(text: string, limit: number): Promise<boolean> {
  if (tokenUpperBound(text) <= limit) return false;
  return countTextTokens(await loadTokenCounter(), text, limit) > limit;
}
