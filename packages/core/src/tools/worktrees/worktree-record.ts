import { z } from 'zod';
import { ProcessIdentitySchema } from '../../store/index.js';

export const WORKTREE_RECORD_VERSION = 1;

/**
 * One isolated turn's worktree, as `.legion/worktrees/<id>.json` keeps it beside the tree. It is
 * a local file, not a session record: a worktree is a folder on this machine, and `legion
 * worktrees` lists it from any session (or none).
 */
export const WorktreeRecordSchema = z.object({
  version: z.literal(WORKTREE_RECORD_VERSION),
  id: z.string(),
  /** The agent whose turn runs in it. */
  agentId: z.string(),
  /** Who sent it the message: the change comes back to them. */
  callerId: z.string(),
  sessionId: z.string(),
  /** The caller's conversation and `communicate` call, when a delegation made it. */
  conversationId: z.string().optional(),
  toolUseId: z.string().optional(),
  /** The commit it was made from: the base of its diff and of the three-way apply. */
  base: z.string(),
  /** The workspace root relative to the repository's top (`""` when they are one): where the tools' root sits in the tree. */
  prefix: z.string(),
  createdAt: z.string(),
  /** The process whose turn runs in it: a dead owner of a `running` worktree is a crash's leftover. */
  owner: ProcessIdentitySchema,
  /** `running` while the turn works in it; `review` once its change waits on a human's apply or discard. */
  state: z.enum(['running', 'review']),
  /** The files its change touches, set when the turn ended. */
  files: z.array(z.string()).optional(),
});
export type WorktreeRecord = z.infer<typeof WorktreeRecordSchema>;

/** A worktree as `legion worktrees` shows it: `abandoned` is a running one whose process died; `leftover` a tree with no record. */
export type WorktreeState = 'running' | 'review' | 'abandoned' | 'leftover';

export interface WorktreeEntry {
  id: string;
  state: WorktreeState;
  /** The tree's folder. */
  path: string;
  /** Absent for a leftover, whose record is gone. */
  record?: WorktreeRecord | undefined;
}
