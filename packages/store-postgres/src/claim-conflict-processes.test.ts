// A write refused by a file claim, on PostgreSQL: raised in a `legion run`, told by a `legion serve`
// beside it (the browser's event stream) once, through the session's conflicts log and LISTEN/NOTIFY.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
import { PostgresSessionBackend } from './PostgresSessionBackend.js';
import { createTestDatabase, postgresSkipped } from './test-support/test-database.js';
import { callServe, followServedEvents, startServe, type ServeProcess } from './test-support/serve-process.js';

const LEGION = fileURLToPath(new URL('../../cli/dist/legion.js', import.meta.url));
const ASK = 'Write the notes, both of you';

describe.skipIf(postgresSkipped() !== undefined)('a claim conflict across legion processes on PostgreSQL', () => {
  const mock = new LLMock({ port: 0, host: '127.0.0.1' });
  let dir: string;
  let env: Record<string, string>;
  let served: ServeProcess | undefined;
  beforeAll(() => mock.start());
  afterAll(() => mock.stop());
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'legion-pg-conflict-'));
    env = {
      NO_COLOR: '1',
      XDG_CONFIG_HOME: join(dir, '.xdg'),
      ANTHROPIC_API_KEY: 'test',
      ANTHROPIC_BASE_URL: mock.url,
      LEGION_SERVE_TOKEN: '',
      LEGION_DATABASE_URL: await createTestDatabase('conflict'),
    };
    expect((await legion(['init'])).code).toBe(0);
  });
  afterEach(() => {
    served?.child.kill('SIGKILL');
    served = undefined;
    rmSync(dir, { recursive: true, force: true });
    mock.clearFixtures();
    mock.resetMatchCounts();
    mock.clearRequests();
  });

  function legion(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [LEGION, ...args],
        { cwd: dir, env: { ...process.env, ...env }, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
  }

  function useModel(participant: string, model: string, policies?: Record<string, string>): void {
    const file = join(dir, `.legion/collective/participants/${participant}.json`);
    const current = JSON.parse(readFileSync(file, 'utf8')) as object;
    writeFileSync(
      file,
      JSON.stringify({ ...current, model: { provider: 'anthropic', model, baseURL: mock.url }, ...(policies ? { policies } : {}) }),
    );
  }

  it("is told by a legion serve once, naming who was refused, the file and the holder, and kept in the session's conflicts log", async () => {
    // Two delegates at once: the developer writes NOTES.md, then takes its time (its turn holds the
    // claim); the reviewer's write comes later (a slow first reply) and is refused.
    useModel('coordinator', 'claude-coord');
    useModel('developer', 'claude-dev', { file_write: 'auto' });
    useModel('reviewer', 'claude-rev', { file_write: 'auto' });
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

    served = await startServe(dir, { ...process.env, ...env });
    const stream = followServedEvents(served);
    const session = JSON.parse((await callServe(served, 'POST', '/api/sessions', {})).text) as { id: string };
    const run = await legion(['run', '--session', session.id, ASK]);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(dir, 'NOTES.md'), 'utf8')).toBe('notes by developer\n');

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
    await stream.until(
      (event) =>
        event.type === 'message:sent' &&
        event.remote === true &&
        event.conversationId === 'user__coordinator' &&
        event.author === 'coordinator',
      "the coordinator's last reply from the other process",
    );
    expect(stream.seen.filter((event) => event.type === 'claim:conflict')).toHaveLength(1);
    stream.close();

    // In the database, where any later follower (a browser opened tomorrow) reads it.
    const backend = new PostgresSessionBackend({ url: env['LEGION_DATABASE_URL']! });
    try {
      expect(await backend.conflicts.read(session.id)).toEqual([
        expect.objectContaining({ kind: 'conflict', id: conflict.conflictId, participantId: 'reviewer', path: 'NOTES.md' }),
      ]);
    } finally {
      await backend.close();
    }
  }, 120_000);
});
