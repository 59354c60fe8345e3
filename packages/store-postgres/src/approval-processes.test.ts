// An approval across `legion` processes on PostgreSQL: requested in one, answered in others, resumed once.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
import { PostgresSessionBackend } from './PostgresSessionBackend.js';
import { createTestDatabase, postgresSkipped } from './test-support/test-database.js';

const LEGION = fileURLToPath(new URL('../../cli/dist/legion.js', import.meta.url));

describe.skipIf(postgresSkipped() !== undefined)('an approval across legion processes on PostgreSQL', () => {
  const mock = new LLMock({ port: 0, host: '127.0.0.1' });
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => mock.start());
  afterAll(() => mock.stop());
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'legion-pg-approval-'));
    env = {
      NO_COLOR: '1',
      XDG_CONFIG_HOME: join(dir, '.xdg'),
      ANTHROPIC_API_KEY: 'test',
      ANTHROPIC_BASE_URL: mock.url,
      LEGION_DATABASE_URL: await createTestDatabase('approval'),
    };
    expect((await legion(['init'])).code).toBe(0);
    const file = join(dir, '.legion/collective/participants/coordinator.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...JSON.parse(readFileSync(file, 'utf8')),
        model: { provider: 'anthropic', model: 'claude-test', baseURL: mock.url },
      }),
    );
  });
  afterEach(() => {
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

  it('is requested by a run in one process, approved from two others at once, and the turn resumes once', async () => {
    mock.on(
      { model: 'claude-test', userMessage: 'Write the notes', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_notes', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'approved' }) }] },
    );
    mock.on({ model: 'claude-test', userMessage: 'Write the notes', hasToolResult: true }, { content: 'notes.txt is written.' });

    const paused = await legion(['run', '--output', 'json', 'Write the notes']);
    expect(paused.code, paused.stderr).toBe(2);
    const report = JSON.parse(paused.stdout) as { sessionId: string; approvals: Array<{ id: string; tool: string }> };
    const requestId = report.approvals[0]!.id;
    expect(report.approvals).toEqual([expect.objectContaining({ tool: 'file_write' })]);

    // Two processes answer at once; the first decision wins and its process resumes the turn.
    const answers = await Promise.all([legion(['approve', '--json', requestId]), legion(['approve', '--json', requestId])]);
    expect(answers.filter((answer) => answer.code === 0)).toHaveLength(1);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('approved');
    const modelCalls = mock.getRequests().filter((entry) => (entry.body as { model?: string } | null)?.model === 'claude-test').length;
    expect(modelCalls).toBe(2);

    const backend = new PostgresSessionBackend({ url: env['LEGION_DATABASE_URL']! });
    try {
      const decisions = (await backend.approvals.read(report.sessionId)).filter((record) => record.kind === 'decision');
      expect(decisions).toEqual([expect.objectContaining({ requestId, decision: 'approved' })]);
      const log = await backend.conversations.recent({ sessionId: report.sessionId, conversationId: 'user__coordinator' }, 100);
      const results = log.flatMap((message) => message.content.filter((block) => block.type === 'tool_result'));
      expect(results).toEqual([
        {
          type: 'tool_result',
          toolUseId: 'toolu_notes',
          content: expect.stringMatching(/^Created notes\.txt/),
          // The write keeps what it changed, for the history: one creation, from the one run.
          fileChange: expect.objectContaining({ status: 'kept', action: 'created', path: 'notes.txt' }),
        },
      ]);
      expect(log.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'notes.txt is written.' }] });
    } finally {
      await backend.close();
    }
  });
});
