import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnsweredElsewhereError } from '../kernel/errors.js';
import type { LegionEvents } from '../kernel/events/event-types.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../testing/index.js';
import { deferred, hangUntilAborted, lastResult } from './__fixtures__/surfaces.js';
import type { UserQuestion } from './user-surface.js';

describe('legion.attachUser: messages to the user go to every attached surface', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('offers a question to two surfaces; the second answers, the first is aborted naming it, and the reply carries its medium', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] },
          { expect: (request) => expect(lastResult(request).content).toBe('8080'), text: 'Using 8080' },
        ],
      },
    });
    const replAsked = deferred<UserQuestion>();
    const replReasons: unknown[] = [];
    test.legion.attachUser({
      medium: 'repl',
      ask: (question, { signal }) => {
        replAsked.resolve(question);
        return hangUntilAborted(signal, replReasons);
      },
    });
    test.legion.attachUser({
      medium: 'web',
      ask: async () => {
        await replAsked.promise;
        return '8080';
      },
    });
    const sent: Array<LegionEvents['message:sent']> = [];
    test.legion.events.on('message:sent', (event) => sent.push(event));
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'start the server')).toMatchObject({ reply: 'Using 8080' });
    expect(await replAsked.promise).toMatchObject({
      from: 'coordinator',
      text: 'Which port?',
      chain: ['user', 'coordinator'],
      user: { id: 'user' },
      conversation: { conversationId: 'coordinator__user' },
    });
    expect(replReasons).toEqual([expect.any(AnsweredElsewhereError)]);
    expect(replReasons[0]).toMatchObject({ medium: 'web' });
    const reply = sent.find((event) => event.conversationId === 'coordinator__user' && event.author === 'user');
    expect(reply?.message).toMatchObject({ role: 'assistant', medium: 'web', content: [{ type: 'text', text: '8080' }] });
    // The medium is in the log, not only in the event.
    const stored = await (
      await test.reopen().sessions.get(session.id)
    )
      .conversation({ initiator: 'coordinator', responder: 'user' })
      .recent(10);
    expect(stored.find((message) => message.id === reply?.message.id)).toMatchObject({ medium: 'web' });
    if (test.backend === 'file') {
      const log = readFileSync(join(test.root, '.legion', 'sessions', session.id, 'conversations', 'coordinator__user.jsonl'), 'utf8');
      expect(
        log
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((entry) => entry.id === reply?.message.id),
      ).toMatchObject({ medium: 'web' });
    }
    test.assertScriptsDone();
  });

  it('when every surface fails a question, the asking agent is told the user is not available, and why', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] },
          (request) => {
            const result = lastResult(request);
            expect(result.isError).toBe(true);
            expect(result.content).toContain('user is not available: no surface could answer (broken: no one home)');
            expect(result.content).toContain('Make a reasonable assumption');
            return { text: 'Assuming 3000' };
          },
        ],
      },
    });
    test.legion.attachUser({ medium: 'broken', ask: () => Promise.reject(new Error('no one home')) });
    const failures: Array<LegionEvents['error:raised']> = [];
    test.legion.events.on('error:raised', (event) => failures.push(event));
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'start the server')).toMatchObject({ reply: 'Assuming 3000' });
    expect(failures).toContainEqual(
      expect.objectContaining({ scope: 'user surface broken', message: 'no one home', code: 'user_surface_failed', sessionId: session.id }),
    );
    test.assertScriptsDone();
  });

  it('an answer over limits.maxMessageBytes from a surface is never recorded: the surface hears why and is asked again', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] },
          { expect: (request) => expect(lastResult(request).content).toBe('8080'), text: 'Using 8080' },
        ],
      },
    });
    const answers = ['x'.repeat(1_048_577), '8080'];
    let asked = 0;
    test.legion.attachUser({ medium: 'repl', ask: async () => answers[asked++]! });
    const refusals: Array<LegionEvents['error:raised']> = [];
    test.legion.events.on('error:raised', (event) => refusals.push(event));
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'start the server')).toMatchObject({ reply: 'Using 8080' });
    expect(asked).toBe(2);
    expect(refusals).toEqual([
      expect.objectContaining({
        scope: 'user surface repl',
        code: 'answer_refused',
        sessionId: session.id,
        message: expect.stringMatching(
          /the answer to q_\w+ is 1\.0 MB \(1048577 bytes\); the limit is 1\.0 MB \(1048576 bytes\) \(limits\.maxMessageBytes\)\..* Asked again\.$/,
        ),
      }),
    ]);
    const stored = await session.conversation({ initiator: 'coordinator', responder: 'user' }).recent(10);
    expect(stored.some((message) => JSON.stringify(message).includes('xxxxxxxx'))).toBe(false);
    expect((await session.questions.list())[0]).toMatchObject({ status: 'answered', answer: { text: '8080' } });
    test.assertScriptsDone();
  });

  it('a surface that answers only over the limit fails after three tries: the agent is told the user is not available, with the limit', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] },
          {
            expect: (request) =>
              expect(lastResult(request)).toMatchObject({
                isError: true,
                content: expect.stringContaining('the limit is 1.0 MB (1048576 bytes) (limits.maxMessageBytes)'),
              }),
            text: 'Assuming 3000',
          },
        ],
      },
    });
    let asked = 0;
    test.legion.attachUser({ medium: 'bot', ask: async () => (asked++, 'y'.repeat(2_000_000)) });
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'start the server')).toMatchObject({ reply: 'Assuming 3000' });
    expect(asked).toBe(3);
    expect((await session.questions.list())[0]).toMatchObject({ status: 'withdrawn' });
    test.assertScriptsDone();
  });

  it('with no surface anywhere, a question pauses the turn durably: a new message is refused, the answer resumes the chain once', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] },
          (request) => {
            expect(lastResult(request)).toMatchObject({ content: 'Port 8080' });
            return { text: 'Listening on 8080' };
          },
        ],
      },
    });
    const detach = test.legion.attachUser({ medium: 'web', ask: async () => 'too late' });
    detach();
    const session = await test.legion.sessions.create();
    const paused = await test.legion.send(session, 'start the server');
    expect(paused).toMatchObject({
      status: 'paused',
      requests: [],
      questions: [expect.objectContaining({ from: 'coordinator', user: 'user', text: 'Which port?', status: 'pending' })],
    });
    const id = paused.status === 'paused' ? paused.questions![0]!.id : '';
    expect(await session.questions.list({ status: 'pending' })).toEqual([expect.objectContaining({ id })]);
    // The asker waits on it: a new message is not merged into the wait, it is refused, saying how to answer.
    await expect(test.legion.send(session, 'something else')).rejects.toThrow(
      new RegExp(
        `paused until a question is answered: ${id} \\(coordinator asks user: "Which port\\?"\\)\\. Answer with legion answer ${id}`,
      ),
    );
    const answered = await session.answerQuestion(id, 'Port 8080', { medium: 'cli' });
    expect(answered).toMatchObject({
      status: 'answered',
      resumed: [expect.objectContaining({ status: 'success', reply: 'Listening on 8080' })],
    });
    expect(await session.answerQuestion(id, 'again', { medium: 'cli' })).toMatchObject({
      status: 'error',
      error: expect.stringContaining('already answered'),
    });
    test.assertScriptsDone();
  });
});
