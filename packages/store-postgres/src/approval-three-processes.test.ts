// The issue's scenario, literally: an approval requested by a turn in process A, answered by process B
// (`legion approve --no-resume`), and the turn resumed by process C (`legion approvals resume`), on
// PostgreSQL and on the files; and the trace that spans the three processes. The same for a question
// to the user (`legion answer --no-resume`, `legion questions resume`).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
import { FileSessionBackend, type SessionBackend } from '@legion-collective/core';
import { runNodeChild, startOtlpCollector, type OtlpCollector } from '@legion-collective/core/testing';
import { PostgresSessionBackend } from './PostgresSessionBackend.js';
import { createTestDatabase, postgresSkipped } from './test-support/test-database.js';

const LEGION = fileURLToPath(new URL('../../cli/dist/legion.js', import.meta.url));
const PROCESS_LIMIT_MS = 60_000;
const WORKER = fileURLToPath(new URL('./__fixtures__/pg-worker.mjs', import.meta.url));

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

describe.each([
  { backend: 'files', skip: undefined },
  { backend: 'postgres', skip: postgresSkipped() },
])('an approval across three legion processes ($backend)', ({ backend, skip }) => {
  const mock = new LLMock({ port: 0, host: '127.0.0.1' });
  let dir: string;
  let env: Record<string, string>;
  let collector: OtlpCollector | undefined;
  beforeAll(() => mock.start());
  afterAll(() => mock.stop());
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), `legion-three-${backend}-`));
    env = { NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg'), ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: mock.url };
    if (backend === 'postgres' && skip === undefined) env['LEGION_DATABASE_URL'] = await createTestDatabase('three');
    expect((await legion(['init'])).code).toBe(0);
    const file = join(dir, '.legion/collective/participants/coordinator.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...JSON.parse(readFileSync(file, 'utf8')),
        model: { provider: 'anthropic', model: 'claude-test', baseURL: mock.url },
      }),
    );
    mock.on(
      { model: 'claude-test', userMessage: 'Write the notes', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_notes', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'approved' }) }] },
    );
    mock.on({ model: 'claude-test', userMessage: 'Write the notes', hasToolResult: true }, { content: 'notes.txt is written.' });
  });
  afterEach(async () => {
    await collector?.close();
    collector = undefined;
    rmSync(dir, { recursive: true, force: true });
    mock.clearFixtures();
    mock.resetMatchCounts();
    mock.clearRequests();
  });

  function legion(args: string[]): Promise<Exit> {
    return new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [LEGION, ...args],
        { cwd: dir, env: { ...process.env, ...env }, timeout: PROCESS_LIMIT_MS },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
  }
  const modelCalls = (): number =>
    mock.getRequests().filter((entry) => (entry.body as { model?: string } | null)?.model === 'claude-test').length;
  const openBackend = (): SessionBackend =>
    env['LEGION_DATABASE_URL'] ? new PostgresSessionBackend({ url: env['LEGION_DATABASE_URL'] }) : new FileSessionBackend({ root: dir });

  /** A: `legion run` pauses on the file_write and exits. B: `legion approve --no-resume` records the decision only. */
  async function pauseAndRecord(): Promise<{ sessionId: string; requestId: string }> {
    const paused = await legion(['run', '--output', 'json', 'Write the notes']);
    expect(paused.code, paused.stderr).toBe(2);
    const report = JSON.parse(paused.stdout) as { sessionId: string; approvals: Array<{ id: string; tool: string }> };
    expect(report.approvals).toEqual([expect.objectContaining({ tool: 'file_write' })]);
    const requestId = report.approvals[0]!.id;

    // Nothing to resume before a decision: said, with what to do.
    const early = await legion(['approvals', 'resume', requestId]);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain(`${requestId} is not decided yet: answer it with "legion approve ${requestId}"`);

    const recorded = await legion(['approve', '--no-resume', '--json', requestId]);
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(JSON.parse(recorded.stdout)).toEqual({ sessionId: report.sessionId, resumed: [], waiting: ['user__coordinator'] });
    const said = await legion(['approve', '--no-resume', requestId]);
    expect(said.code).toBe(1);
    expect(said.stderr).toContain(`${requestId} was already approved by user`);
    // Only recorded: the tool has not run and the model was not asked again.
    expect(existsSync(join(dir, 'notes.txt'))).toBe(false);
    expect(modelCalls()).toBe(1);
    return { sessionId: report.sessionId, requestId };
  }

  it.skipIf(skip !== undefined)(
    'A pauses and exits, B records the decision with --no-resume, C resumes: the tool runs once, the turn goes on once, the log is whole',
    async () => {
      const { sessionId, requestId } = await pauseAndRecord();

      // Two Cs at once: the turn goes on in exactly one of them.
      const resumers = await Promise.all([legion(['approvals', 'resume', '--json']), legion(['approvals', 'resume', '--json'])]);
      for (const resumer of resumers) expect(resumer.code, resumer.stderr).toBe(0);
      const outcomes = resumers.map(
        (resumer) => JSON.parse(resumer.stdout) as { resumed: Array<{ status: string; reply?: string }>; continuing?: string[] },
      );
      expect(outcomes.flatMap((outcome) => outcome.resumed)).toEqual([
        expect.objectContaining({ status: 'success', reply: 'notes.txt is written.' }),
      ]);
      expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('approved');
      expect(modelCalls()).toBe(2);
      // A third C later finds nothing to do.
      const late = await legion(['approvals', 'resume', requestId]);
      expect(late.code, late.stderr).toBe(0);
      expect(late.stdout).toContain('Nothing waits to be resumed');

      const store = openBackend();
      try {
        const decisions = (await store.approvals.read(sessionId)).filter((record) => record.kind === 'decision');
        expect(decisions).toEqual([expect.objectContaining({ requestId, decision: 'approved' })]);
        const log = await store.conversations.recent({ sessionId, conversationId: 'user__coordinator' }, 100);
        expect(log.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
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
        await store.close();
      }
    },
    180_000,
  );

  // Files need the crashed holder's lease to expire (30 s) before another process may take it; PostgreSQL knows at once.
  it.skipIf(skip !== undefined || backend !== 'postgres')(
    'A is killed while its surface asks, B records the decision, C resumes: the tool runs once, nothing is marked interrupted',
    async () => {
      const store = openBackend();
      try {
        const { id: sessionId } = await store.sessions.create();
        const asker = runNodeChild(WORKER, ['ask', dir, env['LEGION_DATABASE_URL']!, sessionId], { env: { ...process.env, ...env } });
        const requestId = (await asker.waitFor((line) => line.startsWith('ASKED '), 'ASKED')).slice('ASKED '.length);
        asker.child.kill('SIGKILL');
        expect(await asker.exited).toEqual({ code: null, signal: 'SIGKILL' });

        const recorded = await legion(['approve', '--no-resume', '--json', '--session', sessionId, requestId]);
        expect(recorded.code, recorded.stderr).toBe(0);
        // A is gone: nothing goes on by itself, the turn waits for a resume.
        expect(JSON.parse(recorded.stdout)).toEqual({ sessionId, resumed: [], waiting: ['user__coordinator'] });
        expect(existsSync(join(dir, 'notes.txt'))).toBe(false);

        const resumed = await legion(['approvals', 'resume', '--json', '--session', sessionId]);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(JSON.parse(resumed.stdout)).toEqual({
          sessionId,
          resumed: [expect.objectContaining({ status: 'success', reply: 'notes.txt is written.' })],
        });
        expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('approved');
        expect(modelCalls()).toBe(2);
        const log = await store.conversations.recent({ sessionId, conversationId: 'user__coordinator' }, 100);
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
        expect(log.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      } finally {
        await store.close();
      }
    },
    180_000,
  );

  // The question twin of the case above: `legion answer --no-resume`, then `legion questions resume`, twice at once.
  it.skipIf(skip !== undefined || backend !== 'postgres')(
    'A is killed while its agent asks the user, B records the answer with --no-resume, two Cs resume: the chain goes on once',
    async () => {
      const store = openBackend();
      try {
        const { id: sessionId } = await store.sessions.create();
        const asker = runNodeChild(WORKER, ['question', dir, env['LEGION_DATABASE_URL']!, sessionId], { env: { ...process.env, ...env } });
        const questionId = (await asker.waitFor((line) => line.startsWith('QUESTION '), 'QUESTION')).slice('QUESTION '.length);
        asker.child.kill('SIGKILL');
        expect(await asker.exited).toEqual({ code: null, signal: 'SIGKILL' });

        const recorded = await legion(['answer', '--no-resume', '--json', '--session', sessionId, questionId, 'the release notes']);
        expect(recorded.code, recorded.stderr).toBe(0);
        expect(JSON.parse(recorded.stdout)).toEqual({ sessionId, questionId, status: 'answered', waiting: true });
        // Recorded only: the workspace's model was not asked.
        expect(modelCalls()).toBe(0);

        const resumers = await Promise.all([0, 1].map(() => legion(['questions', 'resume', '--json', '--session', sessionId])));
        for (const resumer of resumers) expect(resumer.code, resumer.stderr).toBe(0);
        const outcomes = resumers.map((resumer) => JSON.parse(resumer.stdout) as { resumed: Array<{ status: string; reply?: string }> });
        expect(outcomes.flatMap((outcome) => outcome.resumed)).toEqual([
          expect.objectContaining({ status: 'success', reply: 'notes.txt is written.' }),
        ]);
        expect(modelCalls()).toBe(1);
        const log = await store.conversations.recent({ sessionId, conversationId: 'user__coordinator' }, 100);
        const results = log.flatMap((message) => message.content.filter((block) => block.type === 'tool_result'));
        expect(results).toEqual([
          expect.objectContaining({ type: 'tool_result', toolUseId: 'toolu_ask', content: expect.stringContaining('the release notes') }),
        ]);
        expect(log.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      } finally {
        await store.close();
      }
    },
    180_000,
  );

  it.skipIf(skip !== undefined)(
    "the pause in A and the resume in C are one trace: C's turn is a child of A's, across OS processes",
    async () => {
      collector = await startOtlpCollector();
      env['OTEL_EXPORTER_OTLP_ENDPOINT'] = collector.url;
      await pauseAndRecord();
      const resumed = await legion(['approvals', 'resume', '--json']);
      expect(resumed.code, resumed.stderr).toBe(0);

      const turns = collector.spans.filter((span) => span.name === 'invoke_agent coordinator');
      expect(turns.map((span) => span.attributes['legion.turn.resumed'])).toEqual([false, true]);
      const [inA, inC] = turns as [(typeof turns)[0], (typeof turns)[0]];
      expect(inA.parentSpanId).toBeUndefined();
      expect(inA.events).toContain('legion.approval.requested');
      expect(inC.traceId).toBe(inA.traceId);
      expect(inC.parentSpanId).toBe(inA.spanId);
      expect(inC.attributes['gen_ai.conversation.id']).toBe(inA.attributes['gen_ai.conversation.id']);
      // The tool ran in C, inside C's turn; the model calls of both processes are in the one trace.
      const tool = collector.spans.find((span) => span.name === 'execute_tool file_write' && span.parentSpanId === inC.spanId);
      expect(
        tool,
        `spans: ${collector.spans.map((span) => `${span.name} ${span.spanId} < ${span.parentSpanId ?? '-'}`).join(', ')}`,
      ).toBeDefined();
      expect(collector.spans.filter((span) => span.name === 'chat claude-test').map((span) => [span.traceId, span.parentSpanId])).toEqual([
        [inA.traceId, inA.spanId],
        [inA.traceId, inC.spanId],
      ]);
    },
    180_000,
  );
});
