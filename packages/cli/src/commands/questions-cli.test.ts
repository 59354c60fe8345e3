import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { LLMock } from '@copilotkit/aimock';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnsweredElsewhereError, type UserQuestion } from '@legion-collective/core';
import {
  agentParticipant,
  createTestLegion,
  runNodeChild,
  userParticipant,
  type ChildRun,
  type TestLegion,
} from '@legion-collective/core/testing';
import { runLegion } from '../legion-process.test-support.js';

const ASKER = fileURLToPath(new URL('../__fixtures__/ask-and-wait.mjs', import.meta.url));
/** A safety net against a hung child, far above what any step needs; never a timing assertion. */
const CHILD_WAIT_MS = 30_000;

/** Starts the program whose agent asks the user (its only surface never answers); resolves with the question's id. */
async function startAsker(root: string): Promise<{ run: ChildRun; id: string }> {
  const run = runNodeChild(ASKER, [root], { waitLimitMs: CHILD_WAIT_MS });
  const id = (await run.waitFor((line) => line.startsWith('asked q_'), 'asked <id>')).slice('asked '.length);
  return { run, id };
}

/** Starts the asker, then SIGKILLs it once it has asked: the question outlives its asker. */
async function askThenKill(root: string): Promise<string> {
  const { run, id } = await startAsker(root);
  run.child.kill('SIGKILL');
  expect(await run.exited).toMatchObject({ signal: 'SIGKILL' });
  return id;
}

// The asking turn runs in this process (a Legion with a terminal-like surface that never answers);
// the answer comes from a second OS process: the built `legion` binary on the same workspace.
describe('legion questions / legion answer: answering, from another process, a question asked in a running Legion', () => {
  let test: TestLegion;
  let home: string;
  afterEach(async () => {
    await test?.cleanup();
    rmSync(home, { recursive: true, force: true });
  });

  it('lists the waiting question, answers it once from the CLI, and the asking turn goes on with that answer', async () => {
    home = mkdtempSync(join(tmpdir(), 'legion-home-'));
    test = createTestLegion({
      backend: 'file',
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] },
          (request) => {
            const last = request.messages.at(-1)?.content[0];
            return { text: `Using ${last?.type === 'tool_result' ? last.content : '?'}` };
          },
        ],
      },
    });
    let asked!: (question: UserQuestion) => void;
    const question = new Promise<UserQuestion>((resolve) => (asked = resolve));
    const reasons: unknown[] = [];
    test.legion.attachUser({
      medium: 'terminal',
      ask: (offered, { signal }) =>
        new Promise<string>((_, reject) => {
          asked(offered);
          signal.addEventListener('abort', () => {
            reasons.push(signal.reason);
            reject(signal.reason);
          });
        }),
    });
    const session = await test.legion.sessions.create();
    const turn = test.legion.send(session, 'start the server');
    const { id } = await question;
    const env = { PATH: process.env['PATH'] ?? '', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), NO_COLOR: '1' };

    const listed = await runLegion(['questions', '--json'], { cwd: test.root, env, timeoutMs: 30_000 });
    expect(listed.status, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({
      sessionId: session.id,
      questions: [{ id, from: 'coordinator', user: 'user', text: 'Which port?', status: 'pending', chain: ['user', 'coordinator'] }],
    });

    const answered = await runLegion(['answer', id!, '8080'], { cwd: test.root, env, timeoutMs: 30_000 });
    expect(answered.status, answered.stderr).toBe(0);
    expect(answered.stdout).toContain(`Answered ${id}`);
    expect(await turn).toMatchObject({ status: 'success', reply: 'Using 8080' });
    expect(reasons).toEqual([expect.any(AnsweredElsewhereError)]);
    expect(reasons[0]).toMatchObject({ medium: 'cli' });

    const again = await runLegion(['answer', id!, '9090'], { cwd: test.root, env, timeoutMs: 30_000 });
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain(`Question ${id} was already answered by user in cli`);
    const none = await runLegion(['questions'], { cwd: test.root, env, timeoutMs: 30_000 });
    expect(none.stdout).toContain('No question is waiting for an answer.');
    test.assertScriptsDone();
  });

  it('a program whose turn waits for an answer from another process stays alive until it comes, then ends', async () => {
    home = mkdtempSync(join(tmpdir(), 'legion-home-'));
    test = createTestLegion({
      backend: 'file',
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
    });
    const { run, id } = await startAsker(test.root);
    // 'close', not 'exit': only then has all of its output been read.
    const closed = new Promise<number | null>((resolve) => run.child.on('close', resolve));
    const session = await test.legion.sessions.latest();
    // Its only surface never answers: without an answer from here, it waits (and its process stays up).
    expect(await session!.answerQuestion(id, '8080', { medium: 'web' })).toEqual({ status: 'answered' });
    expect(await closed, run.stderr()).toBe(0);
    expect(run.lines()).toContain('success: Using 8080');
  });

  it('legion answer refuses an answer over limits.maxMessageBytes, naming its size and the limit, records nothing, and the question still takes an answer', async () => {
    home = mkdtempSync(join(tmpdir(), 'legion-home-'));
    test = createTestLegion({
      backend: 'file',
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
    });
    const config = join(test.root, '.legion/config.json');
    writeFileSync(config, JSON.stringify({ ...(JSON.parse(readFileSync(config, 'utf8')) as object), limits: { maxMessageBytes: 1000 } }));
    const { run, id } = await startAsker(test.root);
    const closed = new Promise<number | null>((resolve) => run.child.on('close', resolve));
    const env = { PATH: process.env['PATH'] ?? '', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), NO_COLOR: '1' };

    const refused = await runLegion(['answer', id, 'p'.repeat(1500)], { cwd: test.root, env, timeoutMs: 30_000 });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(`the answer to ${id} is 1.5 KB (1500 bytes); the limit is 1000 bytes (limits.maxMessageBytes)`);
    const listed = await runLegion(['questions', '--json'], { cwd: test.root, env, timeoutMs: 30_000 });
    expect(JSON.parse(listed.stdout)).toMatchObject({ questions: [{ id, status: 'pending' }] });

    const answered = await runLegion(['answer', id, '8080'], { cwd: test.root, env, timeoutMs: 30_000 });
    expect(answered.status, answered.stderr).toBe(0);
    expect(await closed, run.stderr()).toBe(0);
    expect(run.lines()).toContain('success: Using 8080');
  });

  it('a question whose process was killed is answered from here: the reply is written and the waiting chain resumes here, once', async () => {
    home = mkdtempSync(join(tmpdir(), 'legion-home-'));
    test = createTestLegion({
      backend: 'file',
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      // Only the resumed step runs here: the question was asked by the killed process's model.
      scripts: {
        coordinator: [
          (request) => {
            const last = request.messages.at(-1)?.content[0];
            return { text: `Resumed with ${last?.type === 'tool_result' ? last.content : '?'}` };
          },
        ],
      },
    });
    const id = await askThenKill(test.root);
    const session = (await test.legion.sessions.latest())!;
    const answered = await session.answerQuestion(id, '8080', { medium: 'web' });
    expect(answered).toEqual({
      status: 'answered',
      resumed: [expect.objectContaining({ status: 'success', reply: 'Resumed with 8080', conversationId: 'user__coordinator' })],
    });
    const replies = (await session.conversation({ initiator: 'coordinator', responder: 'user' }).recent(10)).filter(
      (message) => message.role === 'assistant',
    );
    expect(replies).toEqual([expect.objectContaining({ medium: 'web', content: [{ type: 'text', text: '8080' }] })]);
    expect(await session.answerQuestion(id, '9090')).toEqual({
      status: 'error',
      error: expect.stringContaining('was already answered by user in web'),
    });
    test.assertScriptsDone();
  });

  it('legion answer --no-resume only records the answer; legion questions resume, run twice at once, continues the chain once', async () => {
    home = mkdtempSync(join(tmpdir(), 'legion-home-'));
    const mock = new LLMock({ port: 0, host: '127.0.0.1' });
    await mock.start();
    try {
      test = createTestLegion({
        backend: 'file',
        participants: [userParticipant(), agentParticipant('coordinator')],
        entryAgent: 'coordinator',
      });
      // The asking process (A) has its own scripted model; the resuming ones (C) use this workspace's: a local wire-protocol server.
      const participant = join(test.root, '.legion/collective/participants/coordinator.json');
      writeFileSync(
        participant,
        JSON.stringify({
          ...JSON.parse(readFileSync(participant, 'utf8')),
          model: { provider: 'anthropic', model: 'claude-test', baseURL: mock.url },
        }),
      );
      mock.on({ model: 'claude-test', hasToolResult: true }, { content: 'Resumed with the answer' });
      const modelCalls = (): string[] => mock.getRequests().map((entry) => JSON.stringify(entry.body));

      const id = await askThenKill(test.root);
      const env = {
        PATH: process.env['PATH'] ?? '',
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        NO_COLOR: '1',
        ANTHROPIC_API_KEY: 'test',
        ANTHROPIC_BASE_URL: mock.url,
      };
      const session = (await test.legion.sessions.latest())!;

      // Nothing answered yet: nothing to resume, said with what to do.
      const early = await runLegion(['questions', 'resume', id], { cwd: test.root, env, timeoutMs: 30_000 });
      expect(early.status).toBe(1);
      expect(early.stderr).toContain(`${id} is not answered yet: answer it with legion answer ${id}`);

      const recorded = await runLegion(['answer', '--no-resume', '--json', id, '8080'], { cwd: test.root, env, timeoutMs: 30_000 });
      expect(recorded.status, recorded.stderr).toBe(0);
      expect(JSON.parse(recorded.stdout)).toEqual({ sessionId: session.id, questionId: id, status: 'answered', waiting: true });
      const text = await runLegion(['questions', '--all'], { cwd: test.root, env, timeoutMs: 30_000 });
      expect(text.stdout).toContain(`${id}  answered`);
      // Recorded only: no model ran, and the chain still waits on the question.
      expect(modelCalls()).toEqual([]);
      expect(
        (await session.conversation({ initiator: 'coordinator', responder: 'user' }).recent(10)).filter(
          (message) => message.role === 'assistant',
        ),
      ).toEqual([]);

      const [first, second] = await Promise.all(
        [0, 1].map(() => runLegion(['questions', 'resume', '--json'], { cwd: test.root, env, timeoutMs: 60_000 })),
      );
      for (const run of [first!, second!]) expect(run.status, run.stderr + run.stdout).toBe(0);
      const reports = [first!, second!].map((run) => JSON.parse(run.stdout) as { resumed: Array<{ status: string; reply?: string }> });
      // Each chain goes on once: one resumer ran it, the other found it gone on (or nothing left to resume).
      expect(reports.flatMap((report) => report.resumed)).toEqual([
        expect.objectContaining({ status: 'success', reply: 'Resumed with the answer' }),
      ]);
      expect(modelCalls()).toHaveLength(1);
      expect(modelCalls()[0]).toContain('8080');
      const replies = (await session.conversation({ initiator: 'coordinator', responder: 'user' }).recent(10)).filter(
        (message) => message.role === 'assistant',
      );
      expect(replies).toEqual([expect.objectContaining({ medium: 'cli', content: [{ type: 'text', text: '8080' }] })]);

      const again = await runLegion(['questions', 'resume'], { cwd: test.root, env, timeoutMs: 30_000 });
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout).toContain('Nothing waits to be resumed');
      const help = await runLegion(['answer', '--help'], { cwd: test.root, env, timeoutMs: 30_000 });
      expect(help.stdout).toContain('legion answer --no-resume q_3f2a… "use port 8080"');
      expect(help.stdout.replace(/\s+/g, ' ')).toContain(
        '--no-resume only record the answer; an agent whose asking process ended goes on when any process runs "legion questions resume"',
      );
    } finally {
      await mock.stop();
    }
  });
});
