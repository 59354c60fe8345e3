import type { DelegationFrame } from '../../store/index.js';
import { WorkspacePaths } from '../../store/index.js';
import { WORKTREE_ID, Worktrees } from './Worktrees.js';

/** The worktree a turn with these frames works in: the innermost isolated delegation's, if any. */
export function worktreeOfFrames(frames: readonly DelegationFrame[]): string | undefined {
  for (let index = frames.length - 1; index >= 0; index--) {
    const worktree = frames[index]!.worktree;
    if (worktree !== undefined) return worktree;
  }
  return undefined;
}

/**
 * The root a turn's file and shell tools see: the workspace, or the worktree of the isolated
 * delegation it works for. The one place a turn's root is decided; tools read it from their
 * context and check every path against it, so an isolated turn cannot reach the main tree.
 */
export function turnWorkspaceRoot(frames: readonly DelegationFrame[], workspaceRoot: string | undefined): string | undefined {
  if (workspaceRoot === undefined) return undefined;
  const id = worktreeOfFrames(frames);
  return id === undefined ? workspaceRoot : worktreeRoot(workspaceRoot, id);
}

/** The workspace root inside worktree `id`: where its turn's tools are rooted, and what a preview of its file changes reads. */
export function worktreeRoot(workspaceRoot: string, id: string): string {
  // Ids are Legion's own, read back from records; one that could name a path elsewhere names no folder at all.
  if (!WORKTREE_ID.test(id)) return new WorkspacePaths(workspaceRoot).worktreeDir('not-a-worktree');
  const worktrees = new Worktrees(workspaceRoot);
  const record = worktrees.record(id);
  // A worktree removed under a running turn: its root is a folder that is not there, so its tools fail rather than fall back to the main tree.
  return record ? worktrees.rootOf(record) : new WorkspacePaths(workspaceRoot).worktreeDir(id);
}
