import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspacePaths } from '../../store/index.js';
import { Worktrees } from './Worktrees.js';

function git(root: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' });
}

describe('worktrees a crashed process left behind', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-worktree-leftovers-'));
    git(root, 'init', '--quiet');
    git(root, 'config', 'user.name', 'Legion Test');
    git(root, 'config', 'user.email', 'test@legion.invalid');
    git(root, 'config', 'commit.gpgsign', 'false');
    writeFileSync(join(root, 'notes.txt'), 'one\n');
    git(root, 'add', '-A');
    git(root, 'commit', '--quiet', '-m', 'start');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a running worktree whose process is gone is listed as abandoned, and can be applied or discarded', async () => {
    const worktrees = new Worktrees(root);
    const made = await worktrees.create({ agentId: 'dev', callerId: 'lead', sessionId: 's1' });
    if (!made.ok) throw new Error(made.error);
    writeFileSync(join(made.root, 'notes.txt'), 'one\ntwo\n');
    // While its process lives, it is running: neither applied nor discarded under the turn.
    expect((await worktrees.list()).map((entry) => entry.state)).toEqual(['running']);
    expect(await worktrees.discard(made.record.id)).toMatchObject({ ok: false, error: expect.stringContaining('still works in') });
    // Its owner becomes a process that has exited (as a crash leaves it).
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    const file = new WorkspacePaths(root).worktreeRecord(made.record.id);
    const record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...record, owner: { ...(record['owner'] as object), pid: gone, startTime: '1' } }));

    expect((await worktrees.list()).map((entry) => [entry.id, entry.state])).toEqual([[made.record.id, 'abandoned']]);
    expect(await worktrees.apply(made.record.id)).toEqual({ ok: true, outcome: { status: 'applied', files: ['notes.txt'] } });
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(await worktrees.list()).toEqual([]);
  });

  it('a tree git knows under .legion/worktrees/ with no record is a leftover, and discard removes it', async () => {
    const dir = new WorkspacePaths(root).worktreeDir('dev-0a0b0c');
    git(root, 'worktree', 'add', '--quiet', '--detach', dir, 'HEAD');
    const worktrees = new Worktrees(root);
    expect(await worktrees.list()).toEqual([{ id: 'dev-0a0b0c', state: 'leftover', path: expect.stringContaining('dev-0a0b0c') }]);
    expect(await worktrees.discard('dev-0a0b0c')).toEqual({ ok: true });
    expect(existsSync(dir)).toBe(false);
    expect(git(root, 'worktree', 'list')).not.toContain('dev-0a0b0c');
    expect(await worktrees.list()).toEqual([]);
    expect(await worktrees.discard('../../notes.txt')).toEqual({ ok: false, error: 'No worktree "../../notes.txt".' });
    expect(existsSync(join(root, 'notes.txt'))).toBe(true);
  });
});
