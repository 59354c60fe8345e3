import { z } from 'zod';

/**
 * One file claimed by the turn that runs in a conversation: written (or declared) by that
 * turn's agent, so another agent's write to it does not happen until the turn ends. Kept as long
 * as its holder lives: the backend tells a dead holder the way it tells a dead lease holder.
 */
export const FileClaimSchema = z.object({
  version: z.literal(1),
  /** Workspace-relative, `/`-separated: the key, one claim per path. */
  path: z.string().min(1),
  sessionId: z.string(),
  conversationId: z.string(),
  /** The agent whose turn holds it. */
  participantId: z.string(),
  /** What that turn is doing, in a line: the message it answers (shortened). */
  doing: z.string(),
  /** ISO time it was claimed. */
  since: z.string(),
});
export type FileClaim = z.infer<typeof FileClaimSchema>;

/** A claim taken, or refused because a live holder has the path (`holder`). */
export type TakeClaimResult = { taken: true } | { taken: false; holder: FileClaim };

/**
 * Where a workspace's file claims are kept, shared by every process on the store: a file per claim
 * under `.legion/run/` (`FileSessionBackend`), a table (`@legion-collective/store-postgres`), a map
 * (`MemorySessionBackend`). A claim lasts until its conversation's turn gives it back, a human
 * releases it, or its holder process dies: the last is told as each backend tells a lease's dead
 * holder (process identity on files, the holder connection's advisory lock on PostgreSQL).
 */
export interface FileClaimStore {
  /**
   * Claims the path for `claim`'s conversation, atomically across processes: free, held by a dead
   * holder, or held by the same conversation already (then kept as it was): taken; held by another
   * live conversation: refused with that claim.
   */
  take(claim: FileClaim): Promise<TakeClaimResult>;
  /** The live claim of a path, if any. */
  get(path: string): Promise<FileClaim | undefined>;
  /** Every live claim, by path. */
  list(): Promise<FileClaim[]>;
  /** Gives back every claim this instance took for the conversation (its turn ended). */
  releaseConversation(sessionId: string, conversationId: string): Promise<void>;
  /** Frees a path whoever holds it (a human's release): false when no live claim holds it. */
  release(path: string): Promise<boolean>;
}
