import { sandboxLine, type ApprovalView } from '@legion-collective/core';
import { escapeMarkdown } from './tool-call-line.js';
import { visibleText } from './visible-text.js';

/**
 * An approval request as chat markdown: who asks, for which tool, why, and all of its input in a
 * code block. The input is the model's: its characters a reader would not see are made visible,
 * and the fence is longer than any run of backticks in it, so nothing in the input can close the
 * block and pass markdown of its own off as part of the card.
 */
export function approvalMarkdown(request: Pick<ApprovalView, 'requester' | 'tool' | 'reason' | 'input' | 'sandbox'>): string {
  const input = approvalInputText(request.input);
  const longest = Math.max(0, ...[...input.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  // A code span shows its text as is (no escapes): only a backtick could end it early.
  const who = `**${escapeMarkdown(visibleText(request.requester))}** wants to run \`${visibleText(request.tool).replace(/`/g, "'")}\``;
  const sandbox = request.sandbox
    ? `\n\n${request.sandbox.kind === 'sandboxed' ? '' : '⚠ '}*${escapeMarkdown(visibleText(sandboxLine(request.sandbox)))}*`
    : '';
  return `${who}${request.reason ? ` (${escapeMarkdown(visibleText(request.reason))})` : ''}:${sandbox}\n\n${fence}json\n${input}\n${fence}\n\n`;
}

/** A dialog's detail for a request: whether it runs sandboxed (for a command), then all of its input. */
export function approvalDetail(request: Pick<ApprovalView, 'input' | 'sandbox'>): string {
  const input = approvalInputText(request.input);
  return request.sandbox ? `${visibleText(sandboxLine(request.sandbox))}\n\n${input}` : input;
}

/** All of a request's input as text, for the chat or a dialog: JSON, with what is unseen made visible. */
export function approvalInputText(input: unknown): string {
  return visibleText(JSON.stringify(input, null, 2) ?? String(input));
}
