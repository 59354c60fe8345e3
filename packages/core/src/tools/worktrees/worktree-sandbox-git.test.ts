import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorText, run, successText, tempWorkspace, toolContext } from '../builtin/__fixtures__/tool-context.js';
import { sandboxSupport } from '../child-processes/sandbox.js';
import { createShellRunTool } from '../builtin/shell/shell-run.js';
import { Worktrees } from './Worktrees.js';
import { useGitCeiling } from './__fixtures__/git-ceiling.js';

function git(root: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' });
}

// git in a worktree of an isolated turn, inside the OS sandbox: commits work, the repository's history,
// hooks and config stay out of reach, and what was committed comes back in the reviewed change.
// Where bubblewrap cannot make the sandbox (CI without user namespaces), the suite says so and skips.
describe.skipIf(!sandboxSupport().works)('git in a sandboxed worktree', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  useGitCeiling(() => join(tempWorkspace().root, '..', '..'));
  beforeEach(() => {
    workspace = tempWorkspace();
    const root = workspace.root;
    git(root, 'init', '--quiet');
    git(root, 'config', 'user.name', 'Legion Test');
    git(root, 'config', 'user.email', 'test@legion.invalid');
    git(root, 'config', 'commit.gpgsign', 'false');
    writeFileSync(join(root, 'notes.txt'), 'one\n');
    mkdirSync(join(root, '.git', 'hooks'), { recursive: true });
    git(root, 'add', 'notes.txt');
    git(root, 'commit', '--quiet', '-m', 'start');
  });
  afterEach(() => workspace.cleanup());

  const shell = createShellRunTool({ env: process.env, killGraceMs: 200, sandbox: () => ({ mode: 'on', network: 'off' }) });

  it("git add and commit work; hooks, config, history and the tree's .git file do not change; the commit comes back in the change", async () => {
    const root = workspace.root;
    const worktrees = new Worktrees(root);
    const made = await worktrees.create({ agentId: 'dev', callerId: 'user', sessionId: 's', conversationId: 'user__dev' });
    if (!made.ok) throw new Error(made.error);
    const context = toolContext({ root: made.root });
    const head = git(root, 'rev-parse', 'HEAD');
    const objectsBefore = readdirSync(join(root, '.git', 'objects')).sort();

    const committed = await run(
      shell,
      {
        command: "echo two >> notes.txt && echo new > added.txt && git add -A && git commit -q -m 'by the agent' && git log --format=%s -1",
      },
      context,
    );
    expect(successText(committed)).toContain('by the agent');
    // Uncommitted after the commit: it comes back too.
    await run(shell, { command: 'echo later > later.txt' }, context);

    const hook = join(root, '.git', 'hooks', 'pre-commit');
    expect(errorText(await run(shell, { command: `echo 'touch /tmp/pwned' > ${hook}` }, context))).toContain('Read-only file system');
    expect(existsSync(hook)).toBe(false);
    expect(
      errorText(await run(shell, { command: `git config --file ${join(root, '.git', 'config')} core.hooksPath /tmp` }, context)),
    ).toMatch(/could not lock|Read-only/);
    expect(errorText(await run(shell, { command: 'git branch escaped HEAD' }, context))).toMatch(/Read-only|cannot lock|unable to/i);
    expect(errorText(await run(shell, { command: `rm -rf ${join(root, '.git', 'objects', objectsBefore[0]!)}` }, context))).toContain(
      'Read-only file system',
    );
    expect(errorText(await run(shell, { command: "printf 'gitdir: /tmp/elsewhere\\n' > .git" }, context))).toMatch(
      /Read-only|Device or resource busy/,
    );

    // The main repository: same HEAD and branch, same objects, nothing changed in its tree.
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);
    expect(readdirSync(join(root, '.git', 'objects')).sort()).toEqual(objectsBefore);
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('one\n');

    const finished = await worktrees.finish(made.record.id);

    if (!finished.ok) throw new Error(finished.error);
    expect(finished.change.files).toEqual([
      { path: 'added.txt', status: 'added' },
      { path: 'later.txt', status: 'added' },
      { path: 'notes.txt', status: 'modified' },
    ]);
    expect(finished.change.diff).toContain('+two');
    // Folded back: nothing the repository keeps names an object outside its store (gc and fsck stay whole).
    execFileSync('git', ['fsck', '--no-progress'], { cwd: root, stdio: 'pipe' });
    expect((await worktrees.apply(made.record.id)).ok).toBe(true);
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(readFileSync(join(root, 'added.txt'), 'utf8')).toBe('new\n');
  });
});
