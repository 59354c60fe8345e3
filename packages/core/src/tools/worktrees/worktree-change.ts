import { legionWorktreeGit } from '../child-processes/sandbox-git.js';
import { runGit, gitText } from './git-command.js';
import { foldSandboxCommits } from './sandbox-commits.js';

export interface WorktreeFileChange {
  /** Relative to the workspace root, `/`-separated as git writes it. */
  path: string;
  status: 'added' | 'modified' | 'deleted';
}

/** What an isolated turn changed: its files and a unified diff, cut at a bound a caller's context can take. */
export interface WorktreeChange {
  files: WorktreeFileChange[];
  diff: string;
  /** The diff was longer than the bound: `legion worktrees diff <id>` shows it whole. */
  truncated: boolean;
}

/**
 * Everything under the workspace root but Legion's own state: `.legion/` of the tree is the copy
 * git checked out (roster, config), which no change of an isolated turn may carry into the main one.
 */
const PATHSPEC = ['--', '.', ':(exclude).legion'];

const STATUS: Record<string, WorktreeFileChange['status']> = { A: 'added', M: 'modified', T: 'modified', D: 'deleted' };

/**
 * Reads the change of the tree at `treeRoot` against `base`: every file the turn added, changed
 * or removed, tracked or not (ignored ones aside, as git ignores them). It stages the tree's
 * files in the worktree's own index — nothing of the main tree's index is touched.
 */
export async function collectChange(treeRoot: string, base: string, maxDiffBytes: number): Promise<WorktreeChange> {
  await foldSandboxCommits(treeRoot, base);
  // Named, not discovered: a `.git` a sandboxed command made inside the tree must not be the repository (nor its config) this git reads.
  const layout = legionWorktreeGit(treeRoot);
  const options = layout ? { env: { GIT_DIR: layout.gitDir, GIT_WORK_TREE: layout.top } } : {};
  await gitText(treeRoot, ['add', '-A', ...PATHSPEC], options);
  const listed = await gitText(
    treeRoot,
    ['diff', '--cached', '--name-status', '-z', '--no-renames', '--relative', base, ...PATHSPEC],
    options,
  );
  const parts = listed.split('\0').filter((part) => part !== '');
  const files: WorktreeFileChange[] = [];
  for (let index = 0; index + 1 < parts.length; index += 2) {
    files.push({ path: parts[index + 1]!, status: STATUS[parts[index]!] ?? 'modified' });
  }
  if (files.length === 0) return { files, diff: '', truncated: false };
  const diff = await runGit(
    treeRoot,
    ['diff', '--cached', '--no-color', '--no-ext-diff', '--no-renames', '--relative', base, ...PATHSPEC],
    options,
  );
  const whole = diff.stdout;
  const truncated = whole.length > maxDiffBytes;
  // Cut at a line end, so the last line shown is whole.
  const shown = truncated ? whole.subarray(0, Math.max(0, whole.lastIndexOf(10, maxDiffBytes) + 1)) : whole;
  return { files, diff: shown.toString('utf8'), truncated };
}
