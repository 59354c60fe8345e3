import { LegionError } from '@legion-collective/core';
import { Worktrees, type WorktreeEntry } from '@legion-collective/core/management';
import { resolveWorkspace } from '../workspace.js';
import { inertLine, stdout } from '../render/terminal-text.js';

interface WorktreesOptions {
  workspace?: string;
  json?: boolean;
}

/** What each state asks of the human, as the listing says it. */
const STATE_WORDS: Record<WorktreeEntry['state'], string> = {
  running: 'running',
  review: 'awaiting review',
  abandoned: 'abandoned (its process ended mid-turn)',
  leftover: 'leftover (no record)',
};

/** `legion worktrees [list]`: every worktree of an isolated turn that lives, and what it waits on. */
export async function worktreesListCommand(options: WorktreesOptions): Promise<number> {
  const worktrees = new Worktrees(resolveWorkspace(options.workspace));
  const entries = await worktrees.list();
  if (options.json) {
    stdout.json({ worktrees: entries });
    return 0;
  }
  if (entries.length === 0) {
    stdout.write('No worktrees. An agent with "isolation": "worktree", or a delegation that asks for it, gets one.\n');
    return 0;
  }
  const { style } = stdout;
  for (const entry of entries) {
    const record = entry.record;
    const who = record ? `${record.agentId} for ${record.callerId}` : '';
    const files = record?.files ? `${record.files.length} file${record.files.length === 1 ? '' : 's'}` : '';
    stdout.write(`${style.bold(entry.id)}  ${STATE_WORDS[entry.state]}  ${[who, files].filter(Boolean).join(', ')}\n`);
    // Paths a model chose: one line each, whatever they hold.
    if (record?.files) for (const file of record.files) stdout.write(`  ${inertLine(file)}\n`);
  }
  const waiting = entries.filter((entry) => entry.state !== 'running');
  if (waiting.length > 0)
    stdout.write(
      style.dim(`\nlegion worktrees diff <id> shows a change; apply <id> brings it into the main tree; discard <id> drops it.\n`),
    );
  return 0;
}

/** `legion worktrees diff <id>`: the whole change of a worktree, as a unified diff. */
export async function worktreesDiffCommand(id: string, options: WorktreesOptions): Promise<number> {
  const read = await new Worktrees(resolveWorkspace(options.workspace)).change(id);
  if (!read.ok) throw new LegionError('worktree_refused', read.error, { id });
  if (options.json) stdout.json({ id, files: read.change.files, diff: read.change.diff });
  else stdout.write(read.change.diff || `Worktree ${id} changes nothing.\n`);
  return 0;
}

/**
 * `legion worktrees apply <id>`: merges the change into the main tree, file by file; with any
 * conflict nothing is written, the conflicts are listed and the exit code is 1.
 */
export async function worktreesApplyCommand(id: string, options: WorktreesOptions): Promise<number> {
  const applied = await new Worktrees(resolveWorkspace(options.workspace)).apply(id);
  if (!applied.ok) throw new LegionError('worktree_refused', applied.error, { id });
  const { outcome } = applied;
  if (options.json) {
    stdout.json({ id, ...outcome });
    return outcome.status === 'applied' ? 0 : 1;
  }
  if (outcome.status === 'applied') {
    const files =
      outcome.files.length === 0 ? 'nothing left to change (the main tree had it already)' : outcome.files.map(inertLine).join(', ');
    stdout.write(`Applied worktree ${id}: ${files}. Its worktree is removed.\n`);
    return 0;
  }
  stdout.write(`Not applied: worktree ${id} conflicts with the main tree, which is unchanged.\n`);
  for (const conflict of outcome.conflicts) stdout.write(`  ${inertLine(conflict.path)}: ${conflict.reason}\n`);
  stdout.write(
    `Resolve them in the main tree (legion worktrees diff ${id} shows the change) and apply again, or drop it: legion worktrees discard ${id}\n`,
  );
  return 1;
}

/** `legion worktrees discard <id>`: removes a worktree and its change without applying it. */
export async function worktreesDiscardCommand(id: string, options: WorktreesOptions): Promise<number> {
  const discarded = await new Worktrees(resolveWorkspace(options.workspace)).discard(id);
  if (!discarded.ok) throw new LegionError('worktree_refused', discarded.error, { id });
  if (options.json) stdout.json({ id, status: 'discarded' });
  else stdout.write(`Discarded worktree ${id}: its change is gone, the main tree untouched.\n`);
  return 0;
}
