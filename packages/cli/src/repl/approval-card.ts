import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { readRegularFileSync, type ApprovalView } from '@legion-collective/core';
import { styleFor } from '../render/style.js';
import { clip } from './format.js';

const style = styleFor(process.stdout);
/** A diff longer than this is cut: the card must fit on a screen with the input below it. */
const MAX_DIFF_LINES = 40;
/** Files larger than this are not read to diff against. */
const MAX_DIFF_BYTES = 256 * 1024;

export const APPROVAL_KEYS = '[y] approve once  [s] approve for this agent this session  [a] approve always  [n] reject with a reason';

/** The card for one approval request: the tool, its key arguments (a diff for file writes), the chain that led to it. */
export function approvalCard(request: ApprovalView, chain: readonly string[] | undefined, workspaceRoot: string, position: { index: number; of: number }, options: { keys?: boolean } = {}): string {
  const count = position.of > 1 ? style.dim(` (${position.index} of ${position.of})`) : '';
  const lines = [
    `${style.yellow('approval needed')}${count}  ${style.bold(request.requester)} wants to run ${style.bold(request.tool)}  ${style.dim(request.id)}`,
    `  chain: ${(chain && chain.length > 0 ? [...chain, request.requester] : [request.requester]).filter((id, index, all) => all.indexOf(id) === index).join(' → ')}`,
    `  ${style.dim(request.reason)}`,
    ...argumentLines(request, workspaceRoot),
    ...(options.keys === false ? [] : [`  ${style.cyan(APPROVAL_KEYS)}`]),
  ];
  return lines.join('\n');
}

function argumentLines(request: ApprovalView, workspaceRoot: string): string[] {
  const input = (typeof request.input === 'object' && request.input !== null ? request.input : {}) as Record<string, unknown>;
  if (request.tool === 'file_edit' && typeof input.path === 'string' && typeof input.old_string === 'string' && typeof input.new_string === 'string') {
    return [`  ${input.path}`, ...diffLines(input.path, input.old_string, input.new_string)];
  }
  if (request.tool === 'file_write' && typeof input.path === 'string' && typeof input.content === 'string') {
    const before = readInsideWorkspace(workspaceRoot, input.path);
    return [`  ${input.path} ${style.dim(before === undefined ? '(new file)' : '(replaces the file)')}`, ...diffLines(input.path, before ?? '', input.content)];
  }
  return Object.entries(input).map(([name, value]) => `  ${name}: ${clip(typeof value === 'string' ? value : JSON.stringify(value), 160)}`);
}

function diffLines(path: string, before: string, after: string): string[] {
  const patch = createTwoFilesPatch(path, path, before, after, '', '', { context: 2 }).split('\n').slice(4).filter((line) => line !== '' && !line.startsWith('\\'));
  const shown = patch.slice(0, MAX_DIFF_LINES).map((line) => `    ${line.startsWith('+') ? style.green(line) : line.startsWith('-') ? style.red(line) : style.dim(line)}`);
  if (patch.length > MAX_DIFF_LINES) shown.push(style.dim(`    … ${patch.length - MAX_DIFF_LINES} more lines`));
  return shown;
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
