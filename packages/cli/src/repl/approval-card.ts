import { createTwoFilesPatch } from 'diff';
import { sandboxLine, type ApprovalView, type SandboxNote } from '@legion-collective/core';
import type { FileChange } from '@legion-collective/core/internal';
import { approvalInputLines } from '../render/approval-input.js';
import { styleFor } from '../render/style.js';
import { inert, inertLine } from '../render/terminal-text.js';

const style = styleFor(process.stdout);

/**
 * The card for one approval request: the tool, all of its input (a diff for file writes), the chain
 * that led to it. Nothing is cut: what is approved is what runs, so every character of it is on the
 * card, made visible where a terminal would act on it; a card taller than the screen is clipped by
 * the card view, which says so and prints it whole on Ctrl-O. How to answer (the menu) is the
 * prompts' to add below: printed after the decision, the card stands without it.
 *
 * `change`: what a `file_write` or `file_edit` would do to its file, read by core's `fileChange`
 * through the tool's own path checks and the requester's reading policy (the same the browser's
 * card shows); undefined for other tools.
 */
export function approvalCard(
  request: ApprovalView,
  chain: readonly string[] | undefined,
  change: FileChange | undefined,
  position: { index: number; of: number },
): string {
  const count = position.of > 1 ? style.dim(` (${position.index} of ${position.of})`) : '';
  const lines = [
    `${style.yellow('approval needed')}${count}  ${style.bold(inertLine(request.requester))} wants to run ${style.bold(inertLine(request.tool))}  ${style.dim(inertLine(request.id))}`,
    `  chain: ${(chain && chain.length > 0 ? [...chain, request.requester] : [request.requester])
      .filter((id, index, all) => all.indexOf(id) === index)
      .map(inertLine)
      .join(' → ')}`,
    `  ${style.dim(inert(request.reason))}`,
    ...(request.sandbox ? [`  ${sandboxStyle(request.sandbox)(inert(sandboxLine(request.sandbox)))}`] : []),
    ...argumentLines(request, change),
  ];
  return lines.join('\n');
}

/** Confined is quiet; unconfined stands out, as the approver must weigh it. */
function sandboxStyle(note: SandboxNote): (text: string) => string {
  return note.kind === 'sandboxed' ? style.green : note.kind === 'unsandboxed' ? style.yellow : style.red;
}

function argumentLines(request: ApprovalView, change: FileChange | undefined): string[] {
  const input = (typeof request.input === 'object' && request.input !== null ? request.input : {}) as Record<string, unknown>;
  // Only the path and the text are shown for a file write: an input with any other field shows all its fields instead.
  const only = (...names: string[]): boolean => Object.keys(input).every((name) => names.includes(name));
  const isEdit =
    request.tool === 'file_edit' &&
    only('path', 'old_string', 'new_string', 'replace_all') &&
    typeof input.path === 'string' &&
    typeof input.old_string === 'string' &&
    typeof input.new_string === 'string';
  const isWrite =
    request.tool === 'file_write' && only('path', 'content') && typeof input.path === 'string' && typeof input.content === 'string';
  if (!isEdit && !isWrite) return approvalInputLines(request.input);
  const path = input.path as string;
  const every = isEdit && input.replace_all !== undefined ? [`  replace_all: ${JSON.stringify(input.replace_all)}`] : [];
  if (change?.status === 'shown')
    return [
      `  ${inertLine(path)} ${style.dim(change.before === null ? '(new file)' : isEdit ? '(the file as it is now, edited)' : '(replaces the file as it is now)')}`,
      ...every,
      ...diffLines(path, change.before ?? '', change.after),
    ];
  const notShown = `  ${inertLine(path)} ${style.dim(`(current content not shown: ${inertLine(change?.status === 'not_shown' ? change.reason : 'not read')})`)}`;
  // Without the file: an edit is its replaced text against its replacement; a write, its whole content (never a diff that says "new file").
  if (isEdit) return [notShown, ...every, ...diffLines(path, input.old_string as string, input.new_string as string)];
  return [notShown, ...approvalInputLines({ content: input.content })];
}

function diffLines(path: string, before: string, after: string): string[] {
  const patch = createTwoFilesPatch(path, path, before, after, '', '', { context: 2 })
    .split('\n')
    .slice(4)
    .filter((line) => line !== '' && !line.startsWith('\\'));
  return patch.map(
    (line) =>
      `    ${line.startsWith('+') ? style.green(inertLine(line)) : line.startsWith('-') ? style.red(inertLine(line)) : style.dim(inertLine(line))}`,
  );
}
