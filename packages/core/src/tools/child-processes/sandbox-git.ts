import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { LEGION_DIR } from '../../store/index.js';

/**
 * Where a sandboxed command's git writes new objects in one of Legion's worktrees: a store of the
 * worktree's own, inside its git folder (`.git/worktrees/<id>/`), so `git worktree remove` takes it
 * with the tree. Git reads the repository's objects beside it (an alternate, read-only).
 */
export const SANDBOX_OBJECTS_DIR = 'legion-objects';

/** Files of a worktree's git folder that say where the repository is, and per-worktree config: what a command must not re-point. */
const FIXED_IN_GITDIR = ['commondir', 'gitdir', 'config.worktree'] as const;

export interface WorktreeGit {
  /** The worktree's top folder (holding its `.git` file). */
  top: string;
  /** The `.git` file of the tree, which names `gitDir`. */
  gitFile: string;
  /** The worktree's own git folder, `<repository>/.git/worktrees/<id>`: its HEAD, index and reflog. */
  gitDir: string;
  /** The repository's git folder (`commondir`): objects, refs, config and hooks, shared with the main tree. */
  commonDir: string;
}

/**
 * The git layout of a Legion worktree that holds `root` (under `.legion/worktrees/<id>/`), or
 * undefined for any other folder. Only Legion's own trees: their change is read against their base
 * and their sandbox commits folded back when a turn ends (`foldSandboxCommits`); a worktree a person
 * made keeps git's ordinary layout, which the sandbox leaves read-only.
 */
export function legionWorktreeGit(root: string): WorktreeGit | undefined {
  for (let top = root; ; top = dirname(top)) {
    const gitFile = join(top, '.git');
    if (existsSync(gitFile)) {
      if (!lstatSync(gitFile).isFile()) return undefined;
      if (basename(dirname(top)) !== 'worktrees' || basename(dirname(dirname(top))) !== LEGION_DIR) return undefined;
      const named = /^gitdir: (.+)$/m.exec(readFileSync(gitFile, 'utf8'))?.[1]?.trim();
      if (named === undefined) return undefined;
      const gitDir = resolve(top, named);
      const common = join(gitDir, 'commondir');
      if (!existsSync(common)) return undefined;
      const commonText = readFileSync(common, 'utf8').trim();
      const commonDir = isAbsolute(commonText) ? commonText : resolve(gitDir, commonText);
      return { top, gitFile, gitDir: realpathSync(gitDir), commonDir: realpathSync(commonDir) };
    }
    if (dirname(top) === top) return undefined;
  }
}

/**
 * bwrap's flags that let `git add` and `git commit` work in a Legion worktree, and nothing more of
 * the repository: the worktree's own git folder writable (its index, HEAD, reflog, lock files) but
 * for what says where the repository is (`commondir`, `gitdir`) and its per-worktree config; new
 * objects go to a store of the worktree's own (`GIT_OBJECT_DIRECTORY`) with the repository's as a
 * read-only alternate. The repository's objects, refs, config and hooks stay read-only: a command
 * can neither delete history, move a branch, nor plant a hook or a config that runs later outside
 * the sandbox. The tree's `.git` file is read-only too, so the tree cannot be re-pointed at a git
 * folder of the command's making, whose config Legion's own git would then read. Empty for any other root.
 */
export function worktreeGitFlags(root: string): string[] {
  const git = legionWorktreeGit(root);
  if (git === undefined) return [];
  const objects = join(git.gitDir, SANDBOX_OBJECTS_DIR);
  mkdirSync(objects, { recursive: true });
  // Made empty now (git reads it only with extensions.worktreeConfig), so that it can be bound read-only rather than created by a command.
  if (!existsSync(join(git.gitDir, 'config.worktree'))) writeFileSync(join(git.gitDir, 'config.worktree'), '');
  // The repository first, read-only: where it is under /tmp, the sandbox's own /tmp would hide it.
  const flags = ['--ro-bind', git.commonDir, git.commonDir, '--bind', git.gitDir, git.gitDir];
  for (const name of FIXED_IN_GITDIR) flags.push('--ro-bind', join(git.gitDir, name), join(git.gitDir, name));
  flags.push('--ro-bind', git.gitFile, git.gitFile);
  flags.push('--setenv', 'GIT_OBJECT_DIRECTORY', objects, '--setenv', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', join(git.commonDir, 'objects'));
  return flags;
}
