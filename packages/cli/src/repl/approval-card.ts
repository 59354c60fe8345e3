import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { ApprovalView } from '@legion-collective/core';
import { readRegularFileSync } from '@legion-collective/core/internal';
import { approvalInputLines } from '../render/approval-input.js';
import { styleFor } from '../render/style.js';
import { inert, inertLine } from '../render/terminal-text.js';

const style = styleFor(process.stdout);
/** Files larger than this are not read to diff against. */
const MAX_DIFF_BYTES = 256 * 1024;

/**
 * The card for one approval request: the tool, all of its input (a diff for file writes), the chain
 * that led to it. Nothing is cut: what is approved is what runs, so every character of it is on the
 * card, made visible where a terminal would act on it; a card taller than the screen is clipped by
 * the card view, which says so and prints it whole on Ctrl-O. How to answer (the menu) is the
 * prompts' to add below: printed after the decision, the card stands without it.
 */
export function approvalCard(
  request: ApprovalView,
  chain: readonly string[] | undefined,
  workspaceRoot: string,
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
    ...argumentLines(request, workspaceRoot),
  ];
  return lines.join('\n');
}

function argumentLines(request: ApprovalView, workspaceRoot: string): string[] {
  const input = (typeof request.input === 'object' && request.input !== null ? request.input : {}) as Record<string, unknown>;
  // Only the path and the text are shown for a file write: an input with any other field shows all its fields instead.
  const only = (...names: string[]): boolean => Object.keys(input).every((name) => names.includes(name));
  if (
    request.tool === 'file_edit' &&
    only('path', 'old_string', 'new_string', 'replace_all') &&
    typeof input.path === 'string' &&
    typeof input.old_string === 'string' &&
    typeof input.new_string === 'string'
  ) {
    const every = input.replace_all === undefined ? [] : [`  replace_all: ${JSON.stringify(input.replace_all)}`];
    return [`  ${inertLine(input.path)}`, ...every, ...diffLines(input.path, input.old_string, input.new_string)];
  }
  if (request.tool === 'file_write' && only('path', 'content') && typeof input.path === 'string' && typeof input.content === 'string') {
    const before = readInsideWorkspace(workspaceRoot, input.path);
    return [
      `  ${inertLine(input.path)} ${style.dim(before === undefined ? '(new file)' : '(replaces the file)')}`,
      ...diffLines(input.path, before ?? '', input.content),
    ];
  }
  return approvalInputLines(request.input);
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

/**
 * The current content of a file the model names, to diff against: only a
 * regular file that really lies inside the workspace (the path is the model's,
 * so it may try `..` or a symbolic link out), and not a large one.
 */
function readInsideWorkspace(root: string, path: string): string | undefined {
  try {
    const realRoot = realpathSync(root);
    const target = realpathSync(resolve(realRoot, path));
    const inside = relative(realRoot, target);
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return undefined;
    // Only a regular file, opened without blocking: a FIFO (even one swapped in after a check) cannot freeze the card.
    return readRegularFileSync(target, { maxBytes: MAX_DIFF_BYTES }).toString('utf8');
  } catch {
    return undefined;
  }
}
