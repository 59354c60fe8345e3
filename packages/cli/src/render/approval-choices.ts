import { APPROVAL_CHOICES, type ApprovalChoice } from '@legion-collective/core';
import type { Style } from './style.js';
import { inertLine } from './terminal-text.js';

const LABEL_WIDTH = Math.max(...APPROVAL_CHOICES.map((words) => words.label.length));

/**
 * Core's four approval choices as a terminal lists them, numbered, each with what it does: the
 * same lines in the REPL's card and `legion run`'s prompt. A choice not offered keeps its number
 * (3 is "approve always" everywhere) and says why it is not.
 */
export function approvalChoiceLines(
  style: Style,
  options: { selected?: ApprovalChoice | undefined; unavailable?: Partial<Record<ApprovalChoice, string>> } = {},
): string[] {
  return APPROVAL_CHOICES.map((words) => {
    const label = `${words.number}. ${words.label.padEnd(LABEL_WIDTH)}`;
    const unavailable = options.unavailable?.[words.choice];
    if (unavailable !== undefined) return `    ${style.dim(`${label}  ${inertLine(unavailable)}`)}`;
    const text = words.choice === options.selected ? style.bold(style.cyan(`❯ ${label}`)) : `  ${label}`;
    return `  ${text}  ${style.dim(words.detail)}`;
  });
}
