import { inertLine } from './terminal-text.js';

/**
 * A tool call's input as it will run, for an approval: one field after
 * another, every value whole (never cut: a terminal wraps it), every
 * character a terminal would act on shown instead. A value's own line breaks
 * end in `␊` and go on under a `│` gutter, so a value cannot pass a line of
 * its own off as another field.
 */
export function approvalInputLines(input: unknown, indent = '  '): string[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return valueLines('input', input, indent);
  return Object.entries(input).flatMap(([name, value]) => valueLines(name, value, indent));
}

function valueLines(name: string, value: unknown, indent: string): string[] {
  const label = `${inertLine(name)}: `;
  const text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
  const lines = text.split('\n');
  const gutter = `${indent}${' '.repeat(Math.max(0, label.length - 2))}│ `;
  return lines.map(
    (line, index) =>
      `${index === 0 ? `${indent}${label}` : gutter}${inertLine(line)}${index < lines.length - 1 && typeof value === 'string' ? '␊' : ''}`,
  );
}
