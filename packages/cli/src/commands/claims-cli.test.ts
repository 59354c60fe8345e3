import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEGION, runLegion, type LegionRun } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

/** How a `legion claims --json` line lists a claim. */
interface ListedClaim {
  path: string;
  participantId: string;
  sessionId: string;
  doing: string;
}

// Two parallel delegates write one file, through the real binary and the Anthropic SDK against aimock:
// one write happens, the other is refused naming the holder, the file holds one writer's content, and
// the human sees the conflict; `legion claims` (another process) lists the claim while the turn holds it.
describe('legion run: parallel delegates never overwrite each other', () => {
  const workspace = useWorkspace('legion-claims-');
  const { mock } = workspace;
  const legion = (args: string[]): Promise<LegionRun> =>
    runLegion(args, { cwd: workspace.dir, env: { ...process.env, ...workspace.env() }, timeoutMs: 60_000 });

  /** Writes without asking: the conflict, not an approval, is what this is about. */
  function writesFreely(participant: string, model: string): void {
    workspace.useModel(participant, { provider: 'anthropic', model, baseURL: mock.url });
    const file = join(workspace.dir, `.legion/collective/participants/${participant}.json`);
    const current = JSON.parse(readFileSync(file, 'utf8')) as object;
    writeFileSync(file, JSON.stringify({ ...current, policies: { file_write: 'auto' } }, null, 2));
  }

  it('one write happens, the other is refused naming the holder, the human is told, and legion claims lists the claim', async () => {
    workspace.useModel('coordinator', { provider: 'anthropic', model: 'claude-coord', baseURL: mock.url });
    writesFreely('developer', 'claude-dev');
    writesFreely('reviewer', 'claude-rev');
    mock.on(
      { model: 'claude-coord', userMessage: 'Write the notes, both of you', hasToolResult: false },
      {
        toolCalls: [
          {
            id: 'toolu_dev',
            name: 'communicate',
            arguments: JSON.stringify({ to: 'developer', message: 'Write the release notes to NOTES.md' }),
          },
          { id: 'toolu_rev', name: 'communicate', arguments: JSON.stringify({ to: 'reviewer', message: 'Put the changelog in NOTES.md' }) },
        ],
      },
    );
    mock.on({ model: 'claude-coord', userMessage: 'Write the notes, both of you', hasToolResult: true }, { content: 'Both answered.' });
    // The developer writes at once, then takes its time (a slow reply): its turn holds NOTES.md meanwhile.
    mock.on(
      { model: 'claude-dev', userMessage: 'Write the release notes to NOTES.md', hasToolResult: false },
      {
        toolCalls: [
          { id: 'toolu_dev_write', name: 'file_write', arguments: JSON.stringify({ path: 'NOTES.md', content: 'notes by developer\n' }) },
        ],
      },
    );
    mock.on(
      { model: 'claude-dev', userMessage: 'Write the release notes to NOTES.md', hasToolResult: true },
      { content: 'I wrote NOTES.md and am checking it line by line. '.repeat(30) },
      { latency: 40, chunkSize: 8 },
    );
    // The reviewer's write comes later (its first reply is slow to arrive), while the developer's turn still runs.
    mock.on(
      { model: 'claude-rev', userMessage: 'Put the changelog in NOTES.md', hasToolResult: false },
      {
        toolCalls: [
          {
            id: 'toolu_rev_write',
            name: 'file_write',
            arguments: JSON.stringify({ path: 'NOTES.md', content: 'changelog by reviewer\n' }),
          },
        ],
      },
      { latency: 300, chunkSize: 8 },
    );
    mock.on({ model: 'claude-rev', userMessage: 'Put the changelog in NOTES.md', hasToolResult: true }, { content: 'NOTES.md was taken.' });

    const child = spawn(process.execPath, [LEGION, 'run', 'Write the notes, both of you'], {
      cwd: workspace.dir,
      env: { ...process.env, ...workspace.env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));

    // Another process sees the claim while the developer's turn holds it.
    let listed: ListedClaim[] = [];
    await expect
      .poll(
        async () => {
          const claims = await legion(['claims', '--json']);
          listed = (JSON.parse(claims.stdout) as { claims: ListedClaim[] }).claims;
          return listed.map((claim) => [claim.path, claim.participantId]);
        },
        { timeout: 30_000, interval: 200 },
      )
      .toEqual([['NOTES.md', 'developer']]);
    expect(listed[0]!.doing).toBe('Write the release notes to NOTES.md');
    const table = await legion(['claims']);
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      /^PATH +HOLDER +SINCE +SESSION +DOING\nNOTES\.md +developer \(coordinator__developer\) .+ Write the release notes to NOTES\.md\n/,
    );

    expect(await closed, stderr).toBe(0);
    expect(stdout).toBe('Both answered.\n');
    // The human was shown the conflict, as it happened.
    expect(stderr).toContain(
      "⚠ reviewer's file_write on NOTES.md did not happen: developer is changing it (Write the release notes to NOTES.md)",
    );
    expect(readFileSync(join(workspace.dir, 'NOTES.md'), 'utf8')).toBe('notes by developer\n');
    // The reviewer's model was told who holds the file and how to go on.
    const told = workspace.toolResultSent('toolu_rev_write');
    expect(told).toContain('NOTES.md is claimed by Developer (developer)');
    expect(told).toContain('ask developer through communicate');

    // The turns ended: nothing is claimed, and releasing a path no turn holds is refused, saying so.
    expect((await legion(['claims'])).stdout).toBe('No file is claimed: no running turn holds one.\n');
    const release = await legion(['claims', 'release', 'NOTES.md']);
    expect(release.status).toBe(1);
    expect(release.stderr).toContain('No running turn claims NOTES.md: no file is claimed now.');
  }, 120_000);
});
