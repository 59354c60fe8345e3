import { spawn } from 'node:child_process';
import { LEGION, runLegion, type LegionRun } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// Sessions are named, and `legion log --follow` keeps up with the latest one, through the real binary
// (the Anthropic SDK against aimock).
describe('session titles and following the latest session', () => {
  const workspace = useWorkspace('legion-titles-');
  const { mock } = workspace;
  const legion = (args: string[]): Promise<LegionRun> =>
    runLegion(args, { cwd: workspace.dir, env: { ...process.env, ...workspace.env() }, timeoutMs: 60_000 });
  const sessions = async (): Promise<Array<{ id: string; title?: string }>> =>
    (JSON.parse((await legion(['sessions', '--json'])).stdout) as { sessions: Array<{ id: string; title?: string }> }).sessions;

  beforeEach(() => workspace.useModel('coordinator', { provider: 'anthropic', model: 'claude-titles', baseURL: mock.url }));

  it('a session is titled from its first message, keeps a title given with rename, and lists it', async () => {
    mock.on({ userMessage: /flaky login test/ }, { content: 'On it.' });
    mock.on({ userMessage: 'And the logout one?' }, { content: 'That too.' });
    expect(
      (await legion(['run', '\n  Fix the   flaky login test in auth.ts, it fails one run in ten since the retry change\n(see CI)'])).status,
    ).toBe(0);
    const [first] = await sessions();
    expect(first!.title).toBe('Fix the flaky login test in auth.ts, it fails one run in…');
    const listed = await legion(['sessions']);
    expect(listed.stdout).toContain('Fix the flaky login test in auth.ts');

    const renamed = await legion(['sessions', 'rename', first!.id, 'Login test flake']);
    expect(renamed.status, renamed.stderr).toBe(0);
    expect(renamed.stdout).toBe(`Session ${first!.id} is now titled "Login test flake".\n`);
    // The next message does not take the title back.
    expect((await legion(['run', 'And the logout one?'])).status).toBe(0);
    expect((await sessions())[0]).toMatchObject({ id: first!.id, title: 'Login test flake' });
    expect((await legion(['sessions', 'show', first!.id])).stdout).toContain('Login test flake');

    const empty = await legion(['sessions', 'rename', first!.id, '   ']);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toContain('A session title needs some words');
  }, 120_000);

  it('legion log --follow moves to the new session another process starts, and says so', async () => {
    mock.on({ userMessage: 'first question' }, { content: 'first answer' });
    mock.on({ userMessage: 'Second topic entirely' }, { content: 'second answer' });
    expect((await legion(['run', 'first question'])).status).toBe(0);

    const follower = spawn(process.execPath, [LEGION, 'log', '--follow'], {
      cwd: workspace.dir,
      env: { ...process.env, ...workspace.env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    follower.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    follower.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<void>((resolve) => follower.on('close', () => resolve()));
    try {
      await expect.poll(() => stderr).toContain('following user__coordinator in session');
      expect(stdout).toContain('first answer');

      expect((await legion(['run', '--new-session', 'Second topic entirely'])).status).toBe(0);
      const [newest] = await sessions();
      await expect
        .poll(() => stderr, { timeout: 20_000 })
        .toContain(`following user__coordinator in the new session ${newest!.id} (Second topic entirely)`);
      await expect.poll(() => stdout, { timeout: 20_000 }).toContain('second answer');
      expect(stdout).toContain('Second topic entirely');
    } finally {
      follower.kill('SIGINT');
      await closed;
    }
  }, 120_000);
});
