import {
  closeSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openInWorkspace, replaceContent, resolveToolPath } from '../../store/index.js';
import { runGit } from './git-command.js';
import type { WorktreeFileChange } from './worktree-change.js';

export interface WorktreeConflict {
  path: string;
  reason: string;
}

export type ApplyOutcome = { status: 'applied'; files: string[] } | { status: 'conflict'; conflicts: WorktreeConflict[] };

/** A file's content, or `undefined` when there is none; `conflict` when it is something a change cannot be applied to. */
type Content = { bytes: Buffer; mode: number } | undefined;

type Plan = { path: string; write: Buffer; mode: number } | { path: string; remove: true };

/**
 * Applies an isolated turn's change to the main tree as a three-way merge per file: the tree's
 * commit is the base, the main tree's current file (committed or not) is one side, the worktree's
 * file the other. A file only the worktree changed is taken; one both changed is merged by
 * `git merge-file`; overlapping edits, or a file one side removed and the other changed, are
 * conflicts. It plans every file first and writes only when none conflicts: a conflict leaves
 * the main tree exactly as it was (no markers, no half-applied change). Every path goes through
 * the file tools' own checks (inside the workspace, not `.legion/`, no link leading out).
 */
export async function applyChange(options: {
  treeRoot: string;
  mainRoot: string;
  base: string;
  files: readonly WorktreeFileChange[];
  agentId: string;
}): Promise<ApplyOutcome> {
  const conflicts: WorktreeConflict[] = [];
  const plans: Plan[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'legion-merge-'));
  try {
    for (const file of options.files) {
      const resolved = resolveToolPath(options.mainRoot, file.path, 'write');
      if (!resolved.ok) {
        conflicts.push({ path: file.path, reason: resolved.error });
        continue;
      }
      const theirs = contentAt(join(options.treeRoot, file.path));
      const ours = contentAt(resolved.absolute);
      if (theirs === 'conflict' || ours === 'conflict') {
        conflicts.push({ path: file.path, reason: 'not a regular file on one side (links and special files are not applied)' });
        continue;
      }
      if (same(ours, theirs)) continue;
      const base = await baseContent(options.treeRoot, options.base, file.path);
      if (same(ours, base)) {
        plans.push(theirs === undefined ? { path: file.path, remove: true } : { path: file.path, write: theirs.bytes, mode: theirs.mode });
        continue;
      }
      if (ours === undefined || theirs === undefined || base === undefined) {
        conflicts.push({
          path: file.path,
          reason:
            ours === undefined
              ? 'removed in the main tree, changed in the worktree'
              : 'changed in the main tree since the worktree was made',
        });
        continue;
      }
      const merged = await mergeFile(scratch, ours.bytes, base.bytes, theirs.bytes, options.agentId);
      if (merged === undefined)
        conflicts.push({ path: file.path, reason: 'the main tree changed the same lines since the worktree was made' });
      else plans.push({ path: file.path, write: merged, mode: theirs.mode });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  if (conflicts.length > 0) return { status: 'conflict', conflicts };
  for (const plan of plans) writePlan(options.mainRoot, plan);
  return { status: 'applied', files: plans.map((plan) => plan.path) };
}

function contentAt(path: string): Content | 'conflict' {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return undefined;
  }
  if (!stat.isFile()) return 'conflict';
  return { bytes: readFileSync(path), mode: stat.mode & 0o777 };
}

function same(left: Content, right: Content): boolean {
  if (left === undefined || right === undefined) return left === right;
  return left.bytes.equals(right.bytes);
}

async function baseContent(treeRoot: string, base: string, path: string): Promise<Content> {
  // `<commit>:./path` is relative to the working folder: the workspace root, wherever it sits in the repository.
  const shown = await runGit(treeRoot, ['show', `${base}:./${path}`]);
  return shown.code === 0 ? { bytes: shown.stdout, mode: 0o644 } : undefined;
}

/** The merged content, or `undefined` when the two sides overlap (or git cannot merge them: binary files). */
async function mergeFile(scratch: string, ours: Buffer, base: Buffer, theirs: Buffer, agentId: string): Promise<Buffer | undefined> {
  const [oursFile, baseFile, theirsFile] = ['main', 'base', 'worktree'].map((name) => join(scratch, name));
  writeFileSync(oursFile!, ours);
  writeFileSync(baseFile!, base);
  writeFileSync(theirsFile!, theirs);
  const merged = await runGit(scratch, ['merge-file', '-p', '-L', 'main', '-L', 'base', '-L', agentId, oursFile!, baseFile!, theirsFile!]);
  return merged.code === 0 ? merged.stdout : undefined;
}

function writePlan(mainRoot: string, plan: Plan): void {
  const resolved = resolveToolPath(mainRoot, plan.path, 'write');
  if (!resolved.ok) throw new Error(resolved.error);
  if ('remove' in plan) {
    unlinkSync(resolved.absolute);
    return;
  }
  mkdirSync(dirname(resolved.absolute), { recursive: true });
  // Opened without following links and verified where it landed, as file_write does.
  const { fd } = openInWorkspace(mainRoot, resolved, plan.path, 'write');
  try {
    replaceContent(fd, plan.write);
    // The executable bit travels with the change (a script the agent made runnable); the rest of the mode stays the file's.
    const mode = fstatSync(fd).mode & 0o777;
    const executable = plan.mode & 0o111;
    if ((mode & 0o111) !== executable) fchmodSync(fd, executable ? mode | 0o111 : mode & ~0o111);
  } finally {
    closeSync(fd);
  }
}
