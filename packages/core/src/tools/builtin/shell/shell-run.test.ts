import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { errorText, isGoneSoon, run, successText, tempWorkspace, toolContext } from '../__fixtures__/tool-context.js';
import { hostPid, PID_NAMESPACE } from '../../../testing/host-pid.js';
import { createShellRunTool } from './shell-run.js';

describe('shell_run', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  beforeEach(() => (workspace = tempWorkspace()));
  afterEach(() => workspace.cleanup());

  const shell = createShellRunTool({
    env: { ...process.env, DEPLOY_TOKEN: 'tok-0123456789-secret' },
    outputLimitBytes: 1000,
    killGraceMs: 200,
  });
  /** Whether the process whose pid the command recorded in `file` is gone (soon); it may run in a PID namespace of its own. */
  const goneSoon = async (file: string): Promise<boolean> => {
    const pid = hostPid(readFileSync(join(workspace.root, file), 'utf8'));
    return pid === undefined || (await isGoneSoon(pid));
  };

  it('runs a command in the workspace and reports exit code, stdout and stderr', async () => {
    const context = toolContext({ root: workspace.root });
    expect(successText(await run(shell, { command: 'pwd; echo oops >&2' }, context))).toBe(
      `exit code 0\n[stdout]\n${workspace.root}\n[stderr]\noops`,
    );
    expect(errorText(await run(shell, { command: 'echo failing; exit 3' }, context))).toBe('exit code 3\n[stdout]\nfailing');
    expect(successText(await run(shell, { command: 'true' }, context))).toBe('exit code 0\n(no output)');
  });

  it('runs in a sub-folder and refuses a cwd outside the workspace', async () => {
    const context = toolContext({ root: workspace.root });
    mkdirSync(join(workspace.root, 'pkg'));
    expect(successText(await run(shell, { command: 'pwd', cwd: 'pkg' }, context))).toBe(
      `exit code 0\n[stdout]\n${join(workspace.root, 'pkg')}`,
    );
    expect(errorText(await run(shell, { command: 'pwd', cwd: '..' }, context))).toContain('outside the workspace');
    symlinkSync(workspace.outside, join(workspace.root, 'out'));
    expect(errorText(await run(shell, { command: 'pwd', cwd: 'out' }, context))).toContain('symbolic link');
    expect(errorText(await run(shell, { command: 'pwd', cwd: 'missing' }, context))).toContain('not a folder');
  });

  it('returns large output whole by default: the context, not the tool, decides what the model sees', async () => {
    const text = successText(
      await run(
        createShellRunTool({ killGraceMs: 200 }),
        { command: "head -c 200000 /dev/zero | tr '\\0' a; echo; echo END" },
        toolContext({ root: workspace.root }),
      ),
    );
    expect(text === `exit code 0\n[stdout]\n${'a'.repeat(200_000)}\nEND`).toBe(true);
  });

  it('bounds the memory of large output at its limit: the head and tail, saying how much was cut', async () => {
    const text = successText(
      await run(shell, { command: "head -c 200000 /dev/zero | tr '\\0' a; echo; echo END" }, toolContext({ root: workspace.root })),
    );
    expect(text).toContain('… [199005 bytes cut] …');
    expect(text.endsWith('aaa\nEND')).toBe(true);
    expect(text.length).toBeLessThan(1200);
  });

  it('redacts secret environment values from the output', async () => {
    const text = successText(
      await run(shell, { command: 'echo "token is $DEPLOY_TOKEN"; env | grep DEPLOY' }, toolContext({ root: workspace.root })),
    );
    expect(text).toBe('exit code 0\n[stdout]\ntoken is [redacted:DEPLOY_TOKEN]\nDEPLOY_TOKEN=[redacted:DEPLOY_TOKEN]');
  });

  it('kills the whole process group on timeout', async () => {
    const result = await run(
      shell,
      { command: `sleep 60 & echo $! ${PID_NAMESPACE} > child.pid; echo started; wait`, timeout_ms: 300 },
      toolContext({ root: workspace.root }),
    );
    expect(errorText(result)).toMatch(
      /^Timed out after 300 ms; the command and its children were killed \(killed by SIGTERM\)\.\n\[stdout\]\nstarted$/,
    );
    expect(await goneSoon('child.pid')).toBe(true);
  });

  it('kills the process group when the call is cancelled', async () => {
    const controller = new AbortController();
    const pending = run(
      shell,
      { command: `sleep 60 & echo $! ${PID_NAMESPACE} > child.pid; echo started; wait` },
      toolContext({ root: workspace.root, signal: controller.signal }),
    );
    // Cancel once the command is demonstrably running.
    while (!safeExists(join(workspace.root, 'child.pid'))) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect(errorText(await pending)).toContain('Cancelled; the command and its children were killed');
    expect(await goneSoon('child.pid')).toBe(true);
  });

  it('does not wait for processes the command leaves in the background, and kills them', async () => {
    const text = successText(
      await run(shell, { command: `sleep 60 & echo $! ${PID_NAMESPACE} > bg.pid; echo done` }, toolContext({ root: workspace.root })),
    );
    expect(text).toBe('exit code 0\n[stdout]\ndone');
    expect(await goneSoon('bg.pid')).toBe(true);
  });
});

function safeExists(path: string): boolean {
  try {
    return readFileSync(path, 'utf8').trim() !== '';
  } catch {
    return false;
  }
}
