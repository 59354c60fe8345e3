import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StreamLineSchema, type StreamLine } from '../headless/stream-line.js';
import { runLegion, LEGION } from '../legion-process.test-support.js';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from '../repl/terminal.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// Isolation through the built binary: a developer in its own worktree (its agents on the real
// Anthropic and OpenAI SDKs against aimock on 127.0.0.1), then `legion worktrees` as a human uses it.
const PROCESS_LIMIT_MS = 45_000;
const NOTES = 'one\ntwo\nthree\nfour\nfive\n';
const EDITED = 'one\nTWO, said the developer\nthree\nfour\nfive\n';

describe('legion worktrees: an isolated delegate, its change reviewed and applied', () => {
  const workspace = useWorkspace('legion-worktrees-');
  const { mock, env, useModel } = workspace;

  const legion = (args: string[]) =>
    runLegion(args, { cwd: workspace.dir, env: { ...process.env, ...env() }, input: '', timeoutMs: PROCESS_LIMIT_MS });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: workspace.dir, encoding: 'utf8' });
  const notes = () => readFileSync(join(workspace.dir, 'notes.txt'), 'utf8');

  /** The workspace as a repository with its own identity (CI has none), notes.txt and .legion/ committed. */
  function commitWorkspace(): void {
    writeFileSync(join(workspace.dir, 'notes.txt'), NOTES);
    git('init', '--quiet');
    git('config', 'user.name', 'Legion Test');
    git('config', 'user.email', 'test@legion.invalid');
    git('config', 'commit.gpgsign', 'false');
    writeFileSync(join(workspace.dir, '.gitignore'), '.xdg/\n');
    git('add', '-A');
    git('commit', '--quiet', '-m', 'start');
  }

  /** coordinator (Anthropic) delegates with isolation; developer (OpenAI) writes two files, then answers. */
  function scriptIsolatedDelegation(): void {
    useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
    useModel('developer', { provider: 'openai', model: 'gpt-test', baseURL: `${mock.url}/v1` });
    const delegation = { to: 'developer', message: 'Improve the notes', isolation: 'worktree' };
    mock.on(
      { model: 'claude-test', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify(delegation) }] },
    );
    mock.on({ model: 'claude-test', hasToolResult: true }, { content: 'The developer has a change for you to review.' });
    mock.on(
      { model: 'gpt-test', hasToolResult: false },
      {
        toolCalls: [
          { id: 'call_notes', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: EDITED }) },
          { id: 'call_new', name: 'file_write', arguments: JSON.stringify({ path: 'src/health.ts', content: 'export const ok = 1;\n' }) },
        ],
      },
    );
    mock.on({ model: 'gpt-test', hasToolResult: true }, { content: 'Edited notes.txt and added src/health.ts.' });
  }

  it('the main tree is unchanged until `legion worktrees apply`; a conflicting edit is reported and nothing applied', async () => {
    scriptIsolatedDelegation();
    commitWorkspace();

    const run = await legion(['run', '--output', 'stream-json', '--approve', 'auto', 'Improve the notes']);

    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => StreamLineSchema.parse(JSON.parse(line)) as StreamLine);
    const ready = lines.filter((line): line is Extract<StreamLine, { type: 'worktree:ready' }> => line.type === 'worktree:ready');
    expect(ready).toEqual([
      expect.objectContaining({
        conversationId: 'user__coordinator',
        participantId: 'developer',
        callerId: 'coordinator',
        toolUseId: 'toolu_delegate',
        files: ['notes.txt', 'src/health.ts'],
      }),
    ]);
    const id = ready[0]!.worktreeId;
    expect(notes()).toBe(NOTES);
    expect(existsSync(join(workspace.dir, 'src/health.ts'))).toBe(false);

    const listed = await legion(['worktrees']);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`${id}  awaiting review  developer for coordinator, 2 files`);
    expect(listed.stdout).toContain('  src/health.ts');

    // The human edits the line the developer changed: apply refuses, names the file, writes nothing.
    writeFileSync(join(workspace.dir, 'notes.txt'), NOTES.replace('two', 'two, said the human'));
    const refused = await legion(['worktrees', 'apply', id]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain(`Not applied: worktree ${id} conflicts with the main tree, which is unchanged.`);
    expect(refused.stdout).toContain('  notes.txt: the main tree changed the same lines since the worktree was made');
    expect(notes()).toBe(NOTES.replace('two', 'two, said the human'));
    expect(existsSync(join(workspace.dir, 'src/health.ts'))).toBe(false);

    // Back to the committed notes, it applies: both files, and the worktree is gone.
    writeFileSync(join(workspace.dir, 'notes.txt'), NOTES);
    const applied = await legion(['worktrees', 'apply', id]);
    expect(applied.status, applied.stderr).toBe(0);
    expect(applied.stdout).toBe(`Applied worktree ${id}: notes.txt, src/health.ts. Its worktree is removed.\n`);
    expect(notes()).toBe(EDITED);
    expect(readFileSync(join(workspace.dir, 'src/health.ts'), 'utf8')).toBe('export const ok = 1;\n');
    expect(JSON.parse((await legion(['worktrees', '--json'])).stdout)).toEqual({ worktrees: [] });
  });

  it('`legion run --to` an isolated agent: its turns work in one worktree, the main tree unchanged until it is applied', async () => {
    useModel('developer', { provider: 'openai', model: 'gpt-test', baseURL: `${mock.url}/v1` });
    // Isolated by its own file; it writes without asking.
    const file = join(workspace.dir, '.legion/collective/participants/developer.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...JSON.parse(readFileSync(file, 'utf8')),
        isolation: 'worktree',
        policies: { file_write: 'auto', file_read: 'auto' },
      }),
    );
    mock.on(
      { userMessage: 'Improve the notes', hasToolResult: false },
      { toolCalls: [{ id: 'call_notes', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: EDITED }) }] },
    );
    mock.on({ userMessage: 'Improve the notes', hasToolResult: true }, { content: 'Edited notes.txt.' });
    mock.on(
      { userMessage: 'Add a health check', hasToolResult: false },
      {
        toolCalls: [
          { id: 'call_new', name: 'file_write', arguments: JSON.stringify({ path: 'src/health.ts', content: 'export const ok = 1;\n' }) },
        ],
      },
    );
    mock.on({ userMessage: 'Add a health check', hasToolResult: true }, { content: 'Added src/health.ts.' });
    commitWorkspace();

    const first = await legion(['run', '--to', 'developer', '--output', 'stream-json', 'Improve the notes']);

    expect(first.status, first.stderr).toBe(0);
    const ready = (output: string) =>
      output
        .trimEnd()
        .split('\n')
        .map((line) => StreamLineSchema.parse(JSON.parse(line)) as StreamLine)
        .filter((line): line is Extract<StreamLine, { type: 'worktree:ready' }> => line.type === 'worktree:ready');
    const [firstReady] = ready(first.stdout);
    expect(firstReady).toEqual(
      expect.objectContaining({ conversationId: 'user__developer', participantId: 'developer', callerId: 'user', files: ['notes.txt'] }),
    );
    expect(firstReady).not.toHaveProperty('toolUseId');
    expect(notes()).toBe(NOTES);
    expect(git('status', '--porcelain')).toBe('');

    // A second run, in text: the same conversation goes on in the same worktree, and stderr says what to do.
    const second = await legion(['run', '--to', 'developer', 'Add a health check']);

    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toBe('Added src/health.ts.\n');
    expect(second.stderr).toContain(
      `legion: developer's change is ready for review (2 files): legion worktrees apply ${firstReady!.worktreeId}`,
    );
    expect(existsSync(join(workspace.dir, 'src/health.ts'))).toBe(false);

    const applied = await legion(['worktrees', 'apply', firstReady!.worktreeId]);
    expect(applied.status, applied.stderr).toBe(0);
    expect(notes()).toBe(EDITED);
    expect(readFileSync(join(workspace.dir, 'src/health.ts'), 'utf8')).toBe('export const ok = 1;\n');
  });

  it.skipIf(TMUX_MISSING)('the REPL says the change is ready and the command that applies it; /worktrees applies it', async () => {
    scriptIsolatedDelegation();
    // The developer writes without asking, so the REPL shows no card in between.
    const file = join(workspace.dir, '.legion/collective/participants/developer.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), policies: { file_write: 'auto' } }));
    commitWorkspace();
    const terminal = new TmuxTerminal(workspace.dir);
    try {
      const variables = Object.entries(env()).map(([name, value]) => `${name}=${value}`);
      terminal.start(['env', ...variables, process.execPath, LEGION].map(shellQuote).join(' '));
      await terminal.waitFor('/help for commands');
      terminal.type('Improve the notes');
      const shown = await terminal.waitFor(
        /developer's change is ready for review \(2 files\): legion worktrees apply (developer-[0-9a-f]{6})/,
      );
      const id = /legion worktrees apply (developer-[0-9a-f]{6})/.exec(shown)![1]!;
      await terminal.waitFor('coordinator: The developer has a change for you to review.');
      expect(notes()).toBe(NOTES);

      terminal.type('/worktrees');
      await terminal.waitFor(`${id}  awaiting review developer for coordinator, 2 files`);
      terminal.type(`/worktrees apply ${id}`);
      await terminal.waitFor(`Applied worktree ${id}: notes.txt, src/health.ts.`);
      expect(notes()).toBe(EDITED);
    } finally {
      terminal.kill();
    }
  });
});
