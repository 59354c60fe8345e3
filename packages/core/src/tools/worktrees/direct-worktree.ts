import { existsSync } from 'node:fs';
import type { ConversationRef, EventBus } from '../../kernel/index.js';
import { WorkspacePaths } from '../../store/index.js';
import { Worktrees, type WorktreeResult } from './Worktrees.js';

/**
 * The worktree a message sent straight to an isolated agent (`"isolation": "worktree"`) runs in:
 * the REPL, `legion run --to`, the browser and every served protocol send through
 * `Session.send`, which asks here, so no surface reaches the main tree by addressing the agent.
 *
 * One worktree per conversation, kept across its turns until a human applies or discards it:
 * someone who talks to an isolated agent for several turns ("now add a test", "rename that")
 * means one piece of work, reviewed once, and each turn must see what the previous ones did. A
 * worktree per turn would start each turn from HEAD without the earlier edits, and leave several
 * changes to the same files that conflict with each other when applied. Once applied (or
 * discarded), the next message starts a fresh one from HEAD.
 */
export async function openDirectWorktree(owner: {
  workspaceRoot: string | undefined;
  agentId: string;
  callerId: string;
  sessionId: string;
  conversationId: string;
}): Promise<WorktreeResult<{ id: string }>> {
  if (owner.workspaceRoot === undefined)
    return {
      ok: false,
      error: `${owner.agentId} works in a git worktree ("isolation": "worktree"), and there is no workspace to make one in.`,
    };
  const worktrees = new Worktrees(owner.workspaceRoot);
  const kept = worktrees.forConversation(owner.sessionId, owner.conversationId);
  if (kept && existsSync(new WorkspacePaths(owner.workspaceRoot).worktreeDir(kept.id))) return { ok: true, id: worktrees.reopen(kept).id };
  // Its folder was removed by hand: the record alone is no tree to work in.
  if (kept) await worktrees.discard(kept.id);
  const made = await worktrees.create({
    agentId: owner.agentId,
    callerId: owner.callerId,
    sessionId: owner.sessionId,
    conversationId: owner.conversationId,
  });
  if (!made.ok)
    return {
      ok: false,
      error: `${owner.agentId} works in a git worktree ("isolation": "worktree"), and none could be made: ${made.error}`,
    };
  return { ok: true, id: made.record.id };
}

/**
 * A direct turn in worktree `id` ended (answered or failed; a paused one goes on later in the same
 * tree): its change is recorded as awaiting review and announced with `worktree:ready`, which
 * every surface shows with the command that applies it. Nothing reaches the main tree here.
 */
export async function finishDirectWorktree(options: {
  workspaceRoot: string;
  id: string;
  agentId: string;
  callerId: string;
  conversation: ConversationRef;
  events: EventBus;
}): Promise<void> {
  const finished = await new Worktrees(options.workspaceRoot).finish(options.id);
  if (!finished.ok) {
    options.events.emit('error:raised', {
      scope: `worktree ${options.id}`,
      code: 'worktree_refused',
      message: `${options.agentId}'s change in worktree "${options.id}" could not be read: ${finished.error}`,
    });
    return;
  }
  if (finished.change.files.length === 0) return;
  options.events.emit(
    'worktree:ready',
    Object.assign({}, options.conversation, {
      participantId: options.agentId,
      callerId: options.callerId,
      worktreeId: options.id,
      files: finished.change.files.map((file) => file.path),
    }),
  );
}
