import Table from 'cli-table3';
import type { Style } from './style.js';

/**
 * A borderless table: a dim header row, then one row per item, columns aligned
 * (by display width, so colours and wide characters do not skew them).
 */
export function formatTable(head: readonly string[], rows: ReadonlyArray<readonly string[]>, style: Style, options: { align?: ReadonlyArray<'left' | 'right'> } = {}): string {
  const table = new Table({
    head: head.map((title) => style.dim(title)),
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
      bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
      left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ',
    },
    // Colours are ours (per stream, NO_COLOR): the table adds none.
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
    colAligns: head.map((_, index) => options.align?.[index] ?? 'left'),
  });
  for (const row of rows) table.push([...row]);
  return `${table.toString().split('\n').map((line) => line.trimEnd()).join('\n')}\n`;
}
