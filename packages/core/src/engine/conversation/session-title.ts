/** A title longer than this is cut at a word: a list's column, not a paragraph. */
const TITLE_MAX = 60;

/**
 * A session's title from the first message that started work in it, without a model call: its
 * first line that says something, spaces folded, cut at a word with an ellipsis. Undefined for a
 * message with no words (nothing to name it by).
 */
export function titleFromMessage(text: string): string | undefined {
  const line = text
    .split('\n')
    .map((part) => part.replace(/\s+/g, ' ').trim())
    .find((part) => /[\p{L}\p{N}]/u.test(part));
  if (line === undefined) return undefined;
  if (line.length <= TITLE_MAX) return line;
  const cut = line.slice(0, TITLE_MAX - 1);
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord >= TITLE_MAX / 2 ? cut.slice(0, atWord) : cut).replace(/[\s,.;:!?-]+$/u, '')}…`;
}
