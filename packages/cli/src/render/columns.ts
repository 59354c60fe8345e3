import { stripVTControlCharacters } from 'node:util';

/**
 * Rows as aligned, borderless columns (the `git branch -v` / `kubectl get`
 * look): each column as wide as its widest cell, styled text measured without
 * its escape codes, the last column left ragged. Cells past `maxWidth` are cut
 * with "…" so one long description cannot push the table off the screen.
 */
export function columns(rows: ReadonlyArray<readonly string[]>, options: { gap?: number; maxWidth?: number } = {}): string {
  const gap = ' '.repeat(options.gap ?? 2);
  const cut = (cell: string): string =>
    options.maxWidth !== undefined && visibleLength(cell) > options.maxWidth
      ? `${stripVTControlCharacters(cell).slice(0, options.maxWidth - 1)}…`
      : cell;
  const cells = rows.map((row) => row.map(cut));
  const widths: number[] = [];
  for (const row of cells) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, visibleLength(cell))));
  return cells
    .map((row) =>
      row
        .map((cell, index) => (index === row.length - 1 ? cell : cell + ' '.repeat((widths[index] ?? 0) - visibleLength(cell))))
        .join(gap)
        .trimEnd(),
    )
    .join('\n');
}

function visibleLength(text: string): number {
  return [...stripVTControlCharacters(text)].length;
}
