import { eastAsianWidth } from 'get-east-asian-width';
import { stripVTControlCharacters } from 'node:util';

/**
 * Rows as aligned, borderless columns (the `git branch -v` / `kubectl get`
 * look): each column as wide as its widest cell, styled text measured without
 * its escape codes and by the columns a terminal gives each character (a CJK
 * character or an emoji takes two), the last column left ragged. Cells past
 * `maxWidth` are cut with "…" so one long description cannot push the table off
 * the screen.
 */
export function columns(rows: ReadonlyArray<readonly string[]>, options: { gap?: number; maxWidth?: number } = {}): string {
  const gap = ' '.repeat(options.gap ?? 2);
  const cut = (cell: string): string =>
    options.maxWidth !== undefined && displayWidth(cell) > options.maxWidth ? `${cutToWidth(cell, options.maxWidth - 1)}…` : cell;
  const cells = rows.map((row) => row.map(cut));
  const widths: number[] = [];
  for (const row of cells) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, displayWidth(cell))));
  return cells
    .map((row) =>
      row
        .map((cell, index) => (index === row.length - 1 ? cell : cell + ' '.repeat((widths[index] ?? 0) - displayWidth(cell))))
        .join(gap)
        .trimEnd(),
    )
    .join('\n');
}

/** Combining marks, joiners and variation selectors take no column of their own. */
const ZERO_WIDTH = /[\p{Mn}\p{Me}\u200d\ufe00-\ufe0f]/u;

/** How many terminal columns `text` takes, its escape codes aside. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const character of stripVTControlCharacters(text)) width += characterWidth(character);
  return width;
}

function characterWidth(character: string): number {
  return ZERO_WIDTH.test(character) ? 0 : eastAsianWidth(character.codePointAt(0)!);
}

/** The start of `text` (escape codes removed) that fits in `width` columns. */
function cutToWidth(text: string, width: number): string {
  let kept = '';
  let used = 0;
  for (const character of stripVTControlCharacters(text)) {
    used += characterWidth(character);
    if (used > width) break;
    kept += character;
  }
  return kept;
}
