import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnsweredElsewhereError, type UserQuestion } from '@legion-collective/core';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '@legion-collective/core/testing';
import { runLegion } from './legion-process.test-support.js';

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
    expect(JSON.parse(listed.stdout)).toMatchObject({ sessionId: session.id, questions: [{ id, from: 'coordinator', user: 'user', text: 'Which port?', status: 'pending', chain: ['user', 'coordinator'] }] });

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
});
