import type { Message } from '../kernel/index.js';

/** A word: letters and digits of any script. Anything else (spaces, punctuation, `_`) separates words. */
const WORD = /[\p{L}\p{N}]+/gu;

/** The text of a message a search looks in: its text, its tool calls' inputs and their results. */
export function searchableText(message: Message): string {
  return message.content
    .map((block) => (block.type === 'text' ? block.text : block.type === 'tool_use' ? JSON.stringify(block.input) : block.content))
    .join('\n');
}

/**
 * The distinct words of `text`, lower-cased: what every backend indexes and what a search is split
 * into, so that "Hello, world" and "hello world" find the same messages on each of them.
 */
export function searchWords(text: string): string[] {
  return [...new Set(text.toLowerCase().match(WORD) ?? [])];
}

/** Whether `message` has each of `words` (from `searchWords`) as a whole word. */
export function hasEveryWord(message: Message, words: readonly string[]): boolean {
  if (words.length === 0) return false;
  const own = new Set(searchWords(searchableText(message)));
  return words.every((word) => own.has(word));
}
