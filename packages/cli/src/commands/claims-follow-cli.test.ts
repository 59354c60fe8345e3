import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { LEGION, runLegion } from '../legion-process.test-support.js';
import { callServe, followServedEvents, startServe, type ServeProcess } from '../serve-process.test-support.js';
import { useWorkspace, type TestWorkspace } from '../workspace.test-support.js';

const ASK = 'Write the notes, both of you';
const REFUSED = "reviewer's file_write on NOTES.md did not happen: developer is changing it (Write the release notes to NOTES.md)";

/**
 * The coordinator sends two delegates at once; the developer writes NOTES.md and then takes its
 * time, so its turn holds the claim when the reviewer's write comes (its first reply is slow):
 * the reviewer's write is refused. What `claims-cli.test.ts` runs in one process.
 */
function scriptParallelWriters(workspace: TestWorkspace): void {
  const { mock } = workspace;
  const writesFreely = (participant: string, model: string): void => {
    workspace.useModel(participant, { provider: 'anthropic', model, baseURL: mock.url });
    const file = join(workspace.dir, `.legion/collective/participants/${participant}.json`);
    const current = JSON.parse(readFileSync(file, 'utf8')) as object;
    writeFileSync(file, JSON.stringify({ ...current, policies: { file_write: 'auto' } }, null, 2));
  };
  workspace.useModel('coordinator', { provider: 'anthropic', model: 'claude-coord', baseURL: mock.url });
  writesFreely('developer', 'claude-dev');
  writesFreely('reviewer', 'claude-rev');
  mock.on(
    { model: 'claude-coord', userMessage: ASK, hasToolResult: false },
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
  mock.on({ model: 'claude-coord', userMessage: ASK, hasToolResult: true }, { content: 'Both answered.' });
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
  mock.on(
    { model: 'claude-rev', userMessage: 'Put the changelog in NOTES.md', hasToolResult: false },
    {
      toolCalls: [
        { id: 'toolu_rev_write', name: 'file_write', arguments: JSON.stringify({ path: 'NOTES.md', content: 'changelog by reviewer\n' }) },
      ],
    },
    { latency: 300, chunkSize: 8 },
  );
  mock.on({ model: 'claude-rev', userMessage: 'Put the changelog in NOTES.md', hasToolResult: true }, { content: 'NOTES.md was taken.' });
}

const conflictsIn = (seen: Array<Record<string, unknown>>): Array<Record<string, unknown>> =>
  seen.filter((event) => event.type === 'claim:conflict');

// A write refused in one process reaches the human wherever they watch: `legion serve` (the browser's
// event stream) tells a conflict a `legion run` beside it raised, once; and one its own turn raised,
// once, not again when it reads the record back from the session's conflicts log.
describe('claim conflicts across processes', () => {
  const workspace = useWorkspace('legion-claims-follow-');
  let served: ServeProcess | undefined;
  afterEach(() => {
    served?.child.kill('SIGKILL');
    served = undefined;
  });
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, ...workspace.env(), LEGION_SERVE_TOKEN: '' });

  it("a legion serve tells the conflict a legion run's delegate met, once, naming who was refused, the file and the holder", async () => {
    scriptParallelWriters(workspace);
    served = await startServe(workspace.dir, env());
    const stream = followServedEvents(served);
    // The session is the serve's (made through its API); the turn, and the conflict, are the run's.
    const session = JSON.parse((await callServe(served, 'POST', '/api/sessions', {})).text) as { id: string };
    // A third process follows the conversation's log, as a human in another terminal would.
    const follower = spawn(process.execPath, [LEGION, 'log', '--follow', '--session', session.id], { cwd: workspace.dir, env: env() });
    let followed = '';
    follower.stdout.on('data', (chunk: Buffer) => (followed += chunk.toString()));
    let followerErrors = '';
    follower.stderr.on('data', (chunk: Buffer) => (followerErrors += chunk.toString()));
    await expect.poll(() => followerErrors, { timeout: 20_000 }).toContain('Ctrl-C to stop');
    const run = await runLegion(['run', '--session', session.id, ASK], { cwd: workspace.dir, env: env(), timeoutMs: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    // The run's own human saw it once, too.
    expect(run.stderr.split(REFUSED)).toHaveLength(2);

    const conflict = await stream.until((event) => event.type === 'claim:conflict', 'the conflict from the other process');
    expect(conflict).toMatchObject({
      remote: true,
      sessionId: session.id,
      conversationId: 'coordinator__reviewer',
      participantId: 'reviewer',
      tool: 'file_write',
      path: 'NOTES.md',
      holder: { participantId: 'developer', conversationId: 'coordinator__developer', doing: 'Write the release notes to NOTES.md' },
    });
    // Once: the follower reads the conflicts log before the conversations, so by the run's last
    // message it has read every conflict the run recorded.
    await stream.until(
      (event) =>
        event.type === 'message:sent' &&
        event.remote === true &&
        event.conversationId === 'user__coordinator' &&
        event.author === 'coordinator',
      "the coordinator's last reply from the other process",
    );
    expect(conflictsIn(stream.seen)).toHaveLength(1);
    stream.close();

    // legion log shows it too: live to the follower, once, and in the history, before the reply that came after it.
    await expect.poll(() => followed, { timeout: 20_000 }).toContain('Both answered.');
    follower.kill('SIGINT');
    expect(followed.split(`⚠ ${REFUSED}`)).toHaveLength(2);
    const log = await runLegion(['log', '--session', session.id], { cwd: workspace.dir, env: env(), timeoutMs: 60_000 });
    expect(log.status, log.stderr).toBe(0);
    expect(log.stdout).toMatch(
      new RegExp(`Write the notes, both of you[\\s\\S]*⚠ ${REFUSED.replace(/[()]/g, '\\$&')}\\n[\\s\\S]*Both answered\\.`),
    );
  }, 120_000);

  it('a conflict raised in the serve itself is told once, not again when its follower reads the record back', async () => {
    scriptParallelWriters(workspace);
    writeFileSync(
      join(workspace.dir, '.legion/collective/participants/oracle.json'),
      JSON.stringify({
        id: 'oracle',
        type: 'mock',
        name: 'Oracle',
        responses: [{ trigger: 'ping', response: 'pong' }],
        fallback: 'no idea',
      }),
    );
    served = await startServe(workspace.dir, env());
    const stream = followServedEvents(served);
    const session = JSON.parse((await callServe(served, 'POST', '/api/sessions', {})).text) as { id: string };
    expect((await callServe(served, 'POST', `/api/sessions/${session.id}/messages`, { text: ASK })).status).toBe(202);
    const conflict = await stream.until((event) => event.type === 'claim:conflict', 'the conflict');
    expect(conflict).toMatchObject({
      sessionId: session.id,
      participantId: 'reviewer',
      path: 'NOTES.md',
      holder: { participantId: 'developer' },
    });
    expect(conflict.remote).toBeUndefined();
    await stream.until((event) => event.type === 'turn:end' && event.participantId === 'coordinator', "the coordinator's turn to end");
    // Another process writes in the session after it: when the serve tells that, its follower has
    // read the conflicts log past the conflict (it reads that log before the conversations).
    const run = await runLegion(['run', '--session', session.id, '--to', 'oracle', 'ping'], {
      cwd: workspace.dir,
      env: env(),
      timeoutMs: 60_000,
    });
    expect(run.stdout.trim(), run.stderr).toBe('pong');
    await stream.until(
      (event) => event.type === 'message:sent' && event.remote === true && event.author === 'oracle',
      "the oracle's reply from the other process",
    );
    expect(conflictsIn(stream.seen)).toHaveLength(1);
    stream.close();
  }, 120_000);
});
