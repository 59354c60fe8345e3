import type { ConversationRef, EventBus } from '../../kernel/index.js';
import type { ToolResult } from '../tool.js';
import type { Worktrees } from './Worktrees.js';

/**
 * The `communicate` result of an isolated delegation whose turn ended: the reply, and its change
 * as a reviewable diff recorded as awaiting review. Callers do not apply it: applying writes the
 * main tree outside every approval a file tool would ask for, so it is a human's act (`legion
 * worktrees apply`), announced on every surface by a `worktree:ready` event.
 */
export async function reviewResult(options: {
  worktrees: Worktrees;
  worktreeId: string;
  reply: string;
  agentId: string;
  callerId: string;
  conversation: ConversationRef;
  toolUseId: string;
  events: EventBus;
}): Promise<Extract<ToolResult, { status: 'success' }>> {
  const { worktreeId: id } = options;
  const finished = await options.worktrees.finish(id);
  if (!finished.ok)
    return {
      status: 'success',
      data: { reply: options.reply, change: { worktree: id, error: `Its change could not be read: ${finished.error}` } },
    };
  const { change } = finished;
  if (change.files.length === 0)
    return {
      status: 'success',
      data: { reply: options.reply, change: { worktree: id, files: [], note: 'It changed no file; its worktree is removed.' } },
    };
  options.events.emit(
    'worktree:ready',
    Object.assign({}, options.conversation, {
      participantId: options.agentId,
      callerId: options.callerId,
      worktreeId: id,
      toolUseId: options.toolUseId,
      files: change.files.map((file) => file.path),
    }),
  );
  return {
    status: 'success',
    data: {
      reply: options.reply,
      change: {
        worktree: id,
        files: change.files,
        diff: change.diff,
        ...(change.truncated ? { truncated: `The diff is longer than shown: \`legion worktrees diff ${id}\` shows it whole.` } : {}),
        review: `Awaiting a human's review: \`legion worktrees apply ${id}\` applies it to the main tree (conflicts are reported, never applied), \`legion worktrees discard ${id}\` drops it. The main tree is unchanged until then.`,
      },
    },
  };
}
