import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEGION, runLegion, type LegionRun } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// Cancel reaches the whole delegation tree, through the real binary and the Anthropic SDK against
// aimock: a delegate's approval that waits while its caller's turn is cancelled is settled with the
// cancel, so deciding it later runs nothing.
describe('cancel settles what the delegation tree waits on', () => {
  const workspace = useWorkspace('legion-cancel-tree-');
  const { mock } = workspace;
  const legion = (args: string[]): Promise<LegionRun> =>
    runLegion(args, { cwd: workspace.dir, env: { ...process.env, ...workspace.env() }, timeoutMs: 60_000 });
  const modelCalls = (model: string): number =>
    mock.getRequests().filter((entry) => (entry.body as { model?: string } | null)?.model === model).length;

  it("SIGINT while the coordinator weighs its developer's approval: no approval stays pending, approving it later runs nothing", async () => {
    workspace.useModel('coordinator', { provider: 'anthropic', model: 'claude-coord', baseURL: mock.url });
    workspace.useModel('developer', { provider: 'anthropic', model: 'claude-dev', baseURL: mock.url });
    // The coordinator decides its developer's file writes: the developer's request waits on it, not on the user.
    const coordinatorFile = join(workspace.dir, '.legion/collective/participants/coordinator.json');
    writeFileSync(
      coordinatorFile,
      JSON.stringify(
        {
          ...(JSON.parse(readFileSync(coordinatorFile, 'utf8')) as object),
          approvalAuthority: [{ requester: 'developer', tools: ['file_*'] }],
        },
        null,
        2,
      ),
    );
    mock.on(
      { model: 'claude-coord', userMessage: 'Build the notes', hasToolResult: false },
      {
        toolCalls: [
          { id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Write notes.txt' }) },
        ],
      },
    );
    mock.on(
      { model: 'claude-dev', userMessage: 'Write notes.txt', hasToolResult: false },
      {
        toolCalls: [
          { id: 'toolu_write', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'from a cancelled tree' }) },
        ],
      },
    );
    mock.on({ model: 'claude-dev', userMessage: 'Write notes.txt', hasToolResult: true }, { content: 'Wrote notes.txt.' });
    // The coordinator takes its time over the request (a slow stream): the user cancels meanwhile.
    mock.on(
      { model: 'claude-coord', userMessage: 'Build the notes', hasToolResult: true },
      { content: 'Let me think about whether to approve this write. '.repeat(40) },
      { latency: 100, chunkSize: 8 },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Anything pending?' }, { content: 'No.' });

    const child = spawn(process.execPath, [LEGION, 'run', '--output', 'stream-json', 'Build the notes'], {
      cwd: workspace.dir,
      env: { ...process.env, ...workspace.env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await expect
      .poll(
        () =>
          /"type":"text:delta","[^}]*"participantId":"coordinator"/.test(stdout) ||
          /"participantId":"coordinator"[^}]*"type":"text:delta"/.test(stdout),
        { timeout: 30_000 },
      )
      .toBe(true);
    const requested = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; requestId?: string })
      .find((line) => line.type === 'approval:requested');
    expect(requested?.requestId, stdout).toBeDefined();
    const id = requested!.requestId!;
    child.kill('SIGINT');
    expect(await closed, stderr).toBe(1);

    // Nothing waits any more; the request says it was settled by the cancel.
    const pending = await legion(['approvals']);
    expect(pending.status, pending.stderr).toBe(0);
    expect(pending.stdout).toBe('Nothing is waiting for approval.\n');
    const all = await legion(['approvals', '--all', '--json']);
    const listed = (JSON.parse(all.stdout) as { approvals: Array<{ id: string; status: string; decisionReason?: string }> }).approvals.find(
      (view) => view.id === id,
    );
    expect(listed).toMatchObject({ status: 'rejected', cancelled: true, decisionReason: expect.stringContaining('cancelled') });

    // Deciding it later is refused and resumes nothing: the developer's model is not asked again, the file is never written.
    const approved = await legion(['approve', id]);
    expect(approved.status).toBe(1);
    expect(approved.stderr).toContain(`${id} can no longer be decided: the turn that asked was cancelled`);
    expect(existsSync(join(workspace.dir, 'notes.txt'))).toBe(false);
    expect(modelCalls('claude-dev')).toBe(1);

    // The conversation goes on.
    const next = await legion(['run', 'Anything pending?']);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stdout).toBe('No.\n');
    expect(existsSync(join(workspace.dir, 'notes.txt'))).toBe(false);
  }, 120_000);
});
