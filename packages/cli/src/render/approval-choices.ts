import { APPROVAL_CHOICES, type ApprovalChoice } from '@legion-collective/core';
import type { Style } from './style.js';
import { displayWidth } from './columns.js';
import { inertLine } from './terminal-text.js';

const LABEL_WIDTH = Math.max(...APPROVAL_CHOICES.map((words) => words.label.length));

/**
 * Core's four approval choices as a terminal lists them, numbered, each with what it does: the
 * same lines in the REPL's card and `legion run`'s prompt. A choice not offered keeps its number
 * (3 is "approve always" everywhere) and says why it is not. Given the terminal's `width`, a text
 * too long for its row wraps under itself (a hanging indent), not back under the numbers.
 */
export function approvalChoiceLines(
  style: Style,
  options: {
    selected?: ApprovalChoice | undefined;
    unavailable?: Partial<Record<ApprovalChoice, string>>;
    width?: number | undefined;
  } = {},
): string[] {
  return APPROVAL_CHOICES.flatMap((words) => {
    const label = `${words.number}. ${words.label.padEnd(LABEL_WIDTH)}`;
    // Both row kinds put their text at the same column: 4 (indent and marker) + the label + 2.
    const indent = ' '.repeat(4 + displayWidth(label) + 2);
    const unavailable = options.unavailable?.[words.choice];
    const text = unavailable === undefined ? words.detail : inertLine(unavailable);
    const [first = '', ...rest] = wrapWords(text, options.width === undefined ? Infinity : options.width - indent.length);
    const head =
      unavailable !== undefined
        ? `    ${style.dim(`${label}  ${first}`)}`
        : `  ${words.choice === options.selected ? style.bold(style.cyan(`❯ ${label}`)) : `  ${label}`}  ${style.dim(first)}`;
    return [head, ...rest.map((line) => `${indent}${style.dim(line)}`)];
  });
}

/** Plain text in lines of at most `room` columns, broken between words (a word longer than that is cut). */
function wrapWords(text: string, room: number): string[] {
  const width = Math.max(10, room);
  if (displayWidth(text) <= width) return [text];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (displayWidth(candidate) <= width) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    line = word;
    while (displayWidth(line) > width) {
      lines.push(line.slice(0, width));
      line = line.slice(width);
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
