import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { legionWorktreeGit, SANDBOX_OBJECTS_DIR } from '../child-processes/sandbox-git.js';
import { gitText } from './git-command.js';

/**
 * Folds what a sandboxed command's git did in a worktree (`git add`, `git commit`: objects in the
 * worktree's own store, sandbox-git.ts) back into an ordinary tree before its change is read: the
 * index and HEAD go back to the base commit and the tree's files are staged again by Legion's own
 * git, into the repository's store. The change reviewed is always the tree against its base, so
 * committed and uncommitted edits both come back, as one diff; the commits themselves were the
 * model's bookkeeping and are dropped, with the reflog that named them, so that nothing the
 * repository keeps (HEADs, indexes, reflogs `git gc` walks) refers to an object outside its store.
 */
export async function foldSandboxCommits(treeRoot: string, base: string): Promise<void> {
  const git = legionWorktreeGit(treeRoot);
  if (git === undefined) return;
  const objects = join(git.gitDir, SANDBOX_OBJECTS_DIR);
  if (!existsSync(objects) || readdirSync(objects).length === 0) return;
  const env = { GIT_DIR: git.gitDir, GIT_WORK_TREE: git.top };
  await gitText(git.top, ['read-tree', base], { env });
  await gitText(git.top, ['update-ref', '--no-deref', 'HEAD', base], { env });
  for (const name of ['logs', 'ORIG_HEAD', 'refs', SANDBOX_OBJECTS_DIR]) rmSync(join(git.gitDir, name), { recursive: true, force: true });
}
