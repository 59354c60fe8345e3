import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, relative, resolve, sep } from 'node:path';
import { currentProcessIdentity, processState, readJsonFile, writeJsonAtomic, WorkspacePaths } from '../../store/index.js';
import { runGit } from './git-command.js';
import { applyChange, type ApplyOutcome } from './worktree-apply.js';
import { collectChange, type WorktreeChange } from './worktree-change.js';
import { WORKTREE_RECORD_VERSION, WorktreeRecordSchema, type WorktreeEntry, type WorktreeRecord } from './worktree-record.js';

/** The diff a `communicate` result carries at most; `legion worktrees diff <id>` shows the rest. */
export const REVIEW_DIFF_MAX_BYTES = 16 * 1024;

/** Ids are ours (agent id plus random hex), but an id typed on a command line is checked before it names a folder. */
export const WORKTREE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$/;

export type WorktreeResult<T> = ({ ok: true } & T) | { ok: false; error: string };

/**
 * The git worktrees of isolated turns (`"isolation": "worktree"`): each is a `git worktree add
 * --detach` of HEAD under `.legion/worktrees/<id>/`, with a record beside it. The tree lives under
 * `.legion/` so that no file tool of the main tree can write into it (`.legion/` is not theirs to
 * change) and a listing finds every one, a crashed process's included; `.legion/worktrees/` ignores
 * itself in git, so the main tree's `git status` never shows them.
 *
 * The base is HEAD, not the main tree's uncommitted state: the turn starts from a commit both
 * sides know, and the apply merges its change into the main tree as it is then, uncommitted edits
 * included, so a human's work in progress is kept, and any overlap is reported as a conflict.
 */
export class Worktrees {
  private readonly paths: WorkspacePaths;

  constructor(root: string) {
    this.paths = new WorkspacePaths(root);
  }

  /** Makes a worktree for `agentId`'s turn, or says why not (no git repository, no commit yet, git failed). */
  async create(owner: {
    agentId: string;
    callerId: string;
    sessionId: string;
    conversationId?: string | undefined;
    toolUseId?: string | undefined;
  }): Promise<WorktreeResult<{ record: WorktreeRecord; root: string }>> {
    const top = await runGit(this.paths.root, ['rev-parse', '--show-toplevel']);
    if (top.code !== 0)
      return {
        ok: false,
        error: `The workspace (${this.paths.root}) is not in a git repository: a worktree needs one. Run \`git init\` and commit, or work without isolation.`,
      };
    const head = await runGit(this.paths.root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
    if (head.code !== 0) return { ok: false, error: 'The git repository has no commit yet: a worktree starts from HEAD. Commit first.' };
    const prefix = relative(resolve(top.stdout.toString('utf8').trim()), this.paths.root)
      .split(sep)
      .join('/');
    const id = `${owner.agentId}-${randomBytes(3).toString('hex')}`;
    const record: WorktreeRecord = {
      version: WORKTREE_RECORD_VERSION,
      id,
      agentId: owner.agentId,
      callerId: owner.callerId,
      sessionId: owner.sessionId,
      ...(owner.conversationId !== undefined ? { conversationId: owner.conversationId } : {}),
      ...(owner.toolUseId !== undefined ? { toolUseId: owner.toolUseId } : {}),
      base: head.stdout.toString('utf8').trim(),
      prefix,
      createdAt: new Date().toISOString(),
      owner: currentProcessIdentity(),
      state: 'running',
    };
    mkdirSync(this.paths.worktreesDir, { recursive: true });
    // Ignores the folder itself and all in it: nested trees and records are this machine's working state.
    writeFileSync(join(this.paths.worktreesDir, '.gitignore'), '*\n');
    // The record first: a crash right after `git worktree add` leaves a tree that is listed, not a stray folder.
    writeJsonAtomic(this.paths.worktreeRecord(id), record);
    const added = await runGit(this.paths.root, ['worktree', 'add', '--detach', this.paths.worktreeDir(id), record.base]);
    if (added.code !== 0) {
      rmSync(this.paths.worktreeRecord(id), { force: true });
      return { ok: false, error: `git worktree add failed: ${added.stderr}` };
    }
    return { ok: true, record, root: this.rootOf(record) };
  }

  /** The workspace root inside a worktree: where its turn's file and shell tools are rooted. */
  rootOf(record: Pick<WorktreeRecord, 'id' | 'prefix'>): string {
    return join(this.paths.worktreeDir(record.id), record.prefix);
  }

  /** The record of a worktree, or undefined when there is none (or the id is not one). */
  record(id: string): WorktreeRecord | undefined {
    if (!WORKTREE_ID.test(id) || !existsSync(this.paths.worktreeRecord(id))) return undefined;
    return readJsonFile(this.paths.worktreeRecord(id), WorktreeRecordSchema, { what: 'worktree record' });
  }

  /** The worktree a `communicate` call made, found again when its paused delegate resumes. */
  forToolUse(sessionId: string, conversationId: string, toolUseId: string): WorktreeRecord | undefined {
    if (!existsSync(this.paths.worktreesDir)) return undefined;
    for (const name of readdirSync(this.paths.worktreesDir)) {
      if (!name.endsWith('.json')) continue;
      const record = this.record(name.slice(0, -'.json'.length));
      if (record?.sessionId === sessionId && record.conversationId === conversationId && record.toolUseId === toolUseId) return record;
    }
    return undefined;
  }

  /**
   * The worktree of a conversation a participant holds directly with an isolated agent (no
   * `communicate` call made it): the one its earlier turns left awaiting review, until a human
   * applies or discards it.
   */
  forConversation(sessionId: string, conversationId: string): WorktreeRecord | undefined {
    if (!existsSync(this.paths.worktreesDir)) return undefined;
    for (const name of readdirSync(this.paths.worktreesDir).sort()) {
      if (!name.endsWith('.json')) continue;
      const record = this.record(name.slice(0, -'.json'.length));
      if (record?.sessionId === sessionId && record.conversationId === conversationId && record.toolUseId === undefined) return record;
    }
    return undefined;
  }

  /**
   * A new turn works in a worktree again: it is `running` under this process, so no apply or
   * discard takes the tree from under the turn, and a crash of this process shows it `abandoned`.
   */
  reopen(record: WorktreeRecord): WorktreeRecord {
    const reopened: WorktreeRecord = { ...record, state: 'running', owner: currentProcessIdentity() };
    // Its files are those of a change under review; the running turn may change them.
    delete reopened.files;
    writeJsonAtomic(this.paths.worktreeRecord(record.id), reopened);
    return reopened;
  }

  /**
   * The turn in it ended: reads its change and records it as awaiting review. A turn that
   * changed nothing leaves nothing to review: its worktree is removed at once.
   */
  async finish(id: string, maxDiffBytes = REVIEW_DIFF_MAX_BYTES): Promise<WorktreeResult<{ change: WorktreeChange }>> {
    const record = this.record(id);
    if (!record) return { ok: false, error: `No worktree "${id}".` };
    let change: WorktreeChange;
    try {
      change = await collectChange(this.rootOf(record), record.base, maxDiffBytes);
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
    if (change.files.length === 0) await this.remove(id);
    else writeJsonAtomic(this.paths.worktreeRecord(id), { ...record, state: 'review', files: change.files.map((file) => file.path) });
    return { ok: true, change };
  }

  /** The change of a worktree now, bounded as asked (`Infinity`: whole). */
  async change(
    id: string,
    maxDiffBytes = Number.POSITIVE_INFINITY,
  ): Promise<WorktreeResult<{ change: WorktreeChange; record: WorktreeRecord }>> {
    const record = this.record(id);
    if (!record) return { ok: false, error: `No worktree "${id}".` };
    try {
      return { ok: true, record, change: await collectChange(this.rootOf(record), record.base, maxDiffBytes) };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  }

  /** Every worktree that lives: recorded ones (a dead owner's running one is `abandoned`) and trees git knows under our folder with no record (`leftover`). */
  async list(): Promise<WorktreeEntry[]> {
    const entries = new Map<string, WorktreeEntry>();
    const names = existsSync(this.paths.worktreesDir) ? readdirSync(this.paths.worktreesDir) : [];
    for (const name of names.filter((file) => file.endsWith('.json')).sort()) {
      const id = name.slice(0, -'.json'.length);
      const record = this.record(id);
      if (!record) continue;
      const state = record.state === 'running' && processState(record.owner) === 'dead' ? 'abandoned' : record.state;
      entries.set(id, { id, state, path: this.paths.worktreeDir(id), record });
    }
    const listed = await runGit(this.paths.root, ['worktree', 'list', '--porcelain', '-z']);
    if (listed.code === 0) {
      for (const field of listed.stdout.toString('utf8').split('\0')) {
        if (!field.startsWith('worktree ')) continue;
        const path = resolve(field.slice('worktree '.length));
        const id = relative(this.paths.worktreesDir, path);
        if (id === '' || id.includes(sep) || id.startsWith('..') || entries.has(id)) continue;
        entries.set(id, { id, state: 'leftover', path });
      }
    }
    return [...entries.values()];
  }

  /** Applies a worktree's change to the main tree (three-way, all or nothing) and removes it; a conflict leaves both trees as they were. */
  async apply(id: string): Promise<WorktreeResult<{ outcome: ApplyOutcome }>> {
    const record = this.record(id);
    if (!record) return { ok: false, error: `No worktree "${id}" with a change to apply (\`legion worktrees\` lists them).` };
    if (record.state === 'running' && processState(record.owner) !== 'dead')
      return { ok: false, error: `${record.agentId}'s turn still works in worktree "${id}": apply it once the turn has ended.` };
    const read = await this.change(id, 0);
    if (!read.ok) return read;
    let outcome: ApplyOutcome;
    try {
      outcome = await applyChange({
        treeRoot: this.rootOf(record),
        mainRoot: this.paths.root,
        base: record.base,
        files: read.change.files,
        agentId: record.agentId,
      });
    } catch (error) {
      return { ok: false, error: `Applying worktree "${id}" failed: ${(error as Error).message}` };
    }
    if (outcome.status === 'applied') await this.remove(id);
    return { ok: true, outcome };
  }

  /** Removes a worktree and its record without applying it; a running turn's is refused. Leftovers (no record) are removed too. */
  async discard(id: string): Promise<WorktreeResult<object>> {
    if (!WORKTREE_ID.test(id)) return { ok: false, error: `No worktree "${id}".` };
    const record = this.record(id);
    if (record?.state === 'running' && processState(record.owner) !== 'dead')
      return { ok: false, error: `${record.agentId}'s turn still works in worktree "${id}": discard it once the turn has ended.` };
    if (!record && !(await this.list()).some((entry) => entry.id === id)) return { ok: false, error: `No worktree "${id}".` };
    await this.remove(id);
    return { ok: true };
  }

  private async remove(id: string): Promise<void> {
    const dir = this.paths.worktreeDir(id);
    const removed = await runGit(this.paths.root, ['worktree', 'remove', '--force', dir]);
    if (removed.code !== 0) {
      // Its folder already gone (or never made whole): forget it in git's list and clear what is left.
      rmSync(dir, { recursive: true, force: true });
      await runGit(this.paths.root, ['worktree', 'prune']);
    }
    rmSync(this.paths.worktreeRecord(id), { force: true });
  }
}
