import { z } from 'zod';
import { answerApprovals, type AnsweringSession } from './answer-approvals.js';
import { AnsweredElsewhereError } from '../kernel/errors.js';
import type { LegionEvents } from '../kernel/events/event-types.js';
import type { Legion } from '../Legion.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../testing/index.js';
import { defineTool, type Tool } from '../tools/tool.js';
import { deferred, hangUntilAborted, lastResult } from './__fixtures__/surfaces.js';
import type { UserQuestion } from './user-surface.js';

/** The next event of this name the Legion emits that matches. */
function next<Name extends keyof LegionEvents>(
  legion: Legion,
  name: Name,
  match: (event: LegionEvents[Name]) => boolean = () => true,
): Promise<LegionEvents[Name]> {
  return new Promise((resolve) => {
    const off = legion.events.on(name, (event) => {
      if (!match(event as LegionEvents[Name])) return;
      off();
      resolve(event as LegionEvents[Name]);
    });
  });
}

/** coordinator asks the user one question and replies with what the answer was. */
function asker(): TestLegion {
  return createTestLegion({
    participants: [userParticipant(), agentParticipant('coordinator')],
    entryAgent: 'coordinator',
    scripts: {
      coordinator: [
        { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] },
        (request) => ({ text: `Using ${lastResult(request).content}` }),
      ],
    },
  });
}

/** solo calls write_note (a write: it needs the user's approval) once and replies with what the tool said; `runs` counts its executions in every Legion it is registered in. */
function soloWritingNotes(): { test: TestLegion; writeNote: Tool; runs: () => number } {
  let runs = 0;
  const test = createTestLegion({
    participants: [userParticipant(), agentParticipant('solo', { delegation: 'none' })],
    scripts: {
      solo: [
        { toolCalls: [{ id: 't1', name: 'write_note', input: { text: 'hi' } }] },
        (request) => ({ text: `tool said: ${lastResult(request).content}` }),
      ],
    },
  });
  const writeNote = defineTool({
    name: 'write_note',
    description: 'Writes a note',
    effect: 'write',
    inputSchema: z.object({ text: z.string() }),
    async execute() {
      runs++;
      return { status: 'success', data: `wrote note ${runs}` };
    },
  });
  test.legion.tools.register(writeNote);
  return { test, writeNote, runs: () => runs };
}

describe('questions and approvals answered from another process (two Legions on one workspace)', () => {
  let test: TestLegion;
  const others: Legion[] = [];
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
    await test?.cleanup();
  });
  const second = (): Legion => {
    const other = test.reopen();
    others.push(other);
    return other;
  };

  it("a question answered in process B unblocks A once; A's surface is withdrawn naming B's medium; followers tell both sides", async () => {
    test = asker();
    const asked = deferred<UserQuestion>();
    const reasons: unknown[] = [];
    test.legion.attachUser({
      medium: 'terminal',
      ask: (question, { signal }) => {
        asked.resolve(question);
        return hangUntilAborted(signal, reasons);
      },
    });
    const session = await test.legion.sessions.create();
    const b = second();
    await b.follow(session.id, { pollMs: 50 });
    await test.legion.follow(session, { pollMs: 50 });
    const remoteAsked = next(b, 'question:asked');
    const remoteAnswered = next(test.legion, 'question:answered', (event) => event.remote === true);
    const turn = test.legion.send(session, 'start the server');

    const question = await remoteAsked;
    expect(question).toMatchObject({
      remote: true,
      sessionId: session.id,
      conversationId: 'coordinator__user',
      user: 'user',
      from: 'coordinator',
      chain: ['user', 'coordinator'],
      text: 'Which port?',
    });
    expect(question.questionId).toMatch(/^q_[0-9a-f]{12}$/);
    expect((await asked.promise).id).toBe(question.questionId);
    const inB = await b.sessions.get(session.id);
    expect((await inB.questions.list({ status: 'pending' })).map((view) => view.id)).toEqual([question.questionId]);

    // The MCP client's user stands in for the human but did not start this chain: the human's question is not its to answer.
    const byClient = await inB.answerQuestion(question.questionId, '6666', { medium: 'mcp', answeredBy: 'mcp' });
    expect(byClient).toEqual({
      status: 'error',
      error: expect.stringContaining(
        `${question.questionId} was not asked in a turn mcp started; mcp answers only questions of its own chains`,
      ),
    });
    expect(await inB.answerQuestion(question.questionId, '8080', { medium: 'web' })).toEqual({ status: 'answered' });
    expect(await turn).toMatchObject({ status: 'success', reply: 'Using 8080' });
    expect(reasons).toEqual([expect.any(AnsweredElsewhereError)]);
    expect(reasons[0]).toMatchObject({ medium: 'web' });
    expect(await remoteAnswered).toMatchObject({
      questionId: question.questionId,
      text: '8080',
      medium: 'web',
      answeredBy: 'user',
      remote: true,
    });
    // The reply in the log carries the medium it was given on, once.
    const replies = (await session.conversation({ initiator: 'coordinator', responder: 'user' }).recent(10)).filter(
      (message) => message.role === 'assistant',
    );
    expect(replies).toEqual([expect.objectContaining({ medium: 'web', content: [{ type: 'text', text: '8080' }] })]);

    // A second answer, from anywhere, is refused and says who answered.
    const again = await inB.answerQuestion(question.questionId, '9090', { medium: 'cli' });
    expect(again).toEqual({
      status: 'error',
      error: expect.stringContaining(`Question ${question.questionId} was already answered by user in web`),
    });
    expect(await session.answerQuestion('q_000000000000', 'x')).toEqual({
      status: 'error',
      error: expect.stringContaining('There is no question "q_000000000000"'),
    });
    expect((await inB.questions.view(question.questionId))?.status).toBe('answered');
    test.assertScriptsDone();
  });

  it('when a local surface and other processes answer at once, exactly one answer is recorded and used', async () => {
    test = asker();
    const asked = deferred<UserQuestion>();
    const release = deferred();
    const reasons: unknown[] = [];
    test.legion.attachUser({
      medium: 'terminal',
      ask: async (question, { signal }) => {
        signal.addEventListener('abort', () => reasons.push(signal.reason), { once: true });
        asked.resolve(question);
        await release.promise;
        return 'from the terminal';
      },
    });
    const session = await test.legion.sessions.create();
    const turn = test.legion.send(session, 'start the server');
    const { id } = await asked.promise;
    const answerers = [second(), second(), second()];
    const sessions = await Promise.all(answerers.map((legion) => legion.sessions.get(session.id)));
    const racing = sessions.map((other, index) => other.answerQuestion(id!, `from web ${index}`, { medium: `web-${index}` }));
    release.resolve();
    const results = await Promise.all(racing);
    const result = await turn;
    const outcome = (await session.questions.state()).outcome(id!);
    expect(outcome?.kind).toBe('answer');
    const winner = outcome?.kind === 'answer' ? outcome.text : '';
    expect(result).toMatchObject({ status: 'success', reply: `Using ${winner}` });
    const won = results.filter((entry) => entry.status === 'answered');
    if (winner === 'from the terminal') {
      expect(won).toEqual([]);
    } else {
      expect(won).toHaveLength(1);
      // The terminal answered too late: it is told which surface's answer stands.
      expect(reasons).toEqual([expect.objectContaining({ medium: outcome?.kind === 'answer' ? outcome.medium : '' })]);
    }
    for (const entry of results) if (entry.status === 'error') expect(entry.error).toContain(`Question ${id} was already answered`);
    const records = (await test.openBackend().questions.read(session.id)).filter((record) => record.kind !== 'question');
    expect(records).toHaveLength(1);
    const replies = (await session.conversation({ initiator: 'coordinator', responder: 'user' }).recent(10)).filter(
      (message) => message.role === 'assistant',
    );
    expect(replies).toHaveLength(1);
  });

  it("an approval decided in process B while A's surface is asked: A runs the tool once with B's decision, and B does not resume the live turn", async () => {
    const notes = soloWritingNotes();
    test = notes.test;
    const reasons: unknown[] = [];
    test.legion.attachUser({ medium: 'terminal', approve: (_requests, { signal }) => hangUntilAborted(signal, reasons) });
    const session = await test.legion.sessions.create();
    const b = second();
    await b.follow(session.id, { pollMs: 50 });
    const requested = next(b, 'approval:requested');
    const turn = test.legion.send(session, 'write a note', { to: 'solo' });
    const request = await requested;
    expect(request).toMatchObject({ remote: true, tool: 'write_note', approver: 'user' });
    const inB = await b.sessions.get(session.id);
    const answered = await inB.answerApprovals([{ id: request.requestId, decision: 'approve' }], 'user', { medium: 'web' });
    expect(answered).toEqual({ status: 'answered', resumed: [], continuing: ['user__solo'] });
    expect(await turn).toMatchObject({ status: 'success', reply: 'tool said: wrote note 1' });
    expect(notes.runs()).toBe(1);
    expect(reasons).toEqual([expect.objectContaining({ medium: 'web' })]);
    expect(reasons[0]).toBeInstanceOf(AnsweredElsewhereError);
    expect(await inB.approvals.list()).toEqual([expect.objectContaining({ status: 'approved', decisionMedium: 'web', decidedBy: 'user' })]);
    test.assertScriptsDone();
  });

  it('an approval decided in process B whose live turn in A finishes before B asks whether it is live: B does not resume it again', async () => {
    const notes = soloWritingNotes();
    test = notes.test;
    test.legion.attachUser({ medium: 'terminal', approve: (_requests, { signal }) => hangUntilAborted(signal, []) });
    const session = await test.legion.sessions.create();
    const b = second();
    await b.follow(session.id, { pollMs: 50 });
    const requested = next(b, 'approval:requested');
    const turn = test.legion.send(session, 'write a note', { to: 'solo' });
    const request = await requested;
    const inB = await b.sessions.get(session.id);
    // The interleaving a loaded machine makes: B records the decision, A sees it and ends its turn, and only then
    // does B ask whether a turn is live. B's own session answers; only that question waits for A's turn to end.
    const slowB: AnsweringSession = {
      approvals: inB.approvals,
      unanswered: (id) => inB.unanswered(id),
      resumeIfWaiting: (id, frames, signal) => inB.resumeIfWaiting(id, frames, signal),
      turnIsLive: async (id) => {
        await turn;
        return inB.turnIsLive(id);
      },
    };
    const answered = await answerApprovals(slowB, b.collective, [{ id: request.requestId, decision: 'approve' }], 'user', {
      medium: 'web',
    });
    expect(answered).toEqual({ status: 'answered', resumed: [], continuing: ['user__solo'] });
    expect(await turn).toMatchObject({ status: 'success', reply: 'tool said: wrote note 1' });
    expect(notes.runs()).toBe(1);
    const log = await session.conversation({ initiator: 'user', responder: 'solo' }).recent(20);
    expect(log.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    test.assertScriptsDone();
  });

  it('an approval only recorded in process B (resume: false) is resumed by process C, once; a second resume finds nothing', async () => {
    const notes = soloWritingNotes();
    test = notes.test;
    const session = await test.legion.sessions.create();
    // A: nobody to ask, so the turn pauses durably.
    const paused = await test.legion.send(session, 'write a note', { to: 'solo' });
    expect(paused).toMatchObject({ status: 'paused', requests: [expect.objectContaining({ tool: 'write_note' })] });
    const requestId = paused.status === 'paused' ? paused.requests[0]!.id : '';
    const inB = await second().sessions.get(session.id);
    const c = second();
    c.tools.register(notes.writeNote);
    const inC = await c.sessions.get(session.id);
    expect(await inC.resumeDecided({ ids: [requestId] })).toEqual({
      status: 'error',
      error: expect.stringContaining(`${requestId} is not decided yet`),
    });
    expect(await inC.resumeDecided({ ids: ['apr_000000000000'] })).toEqual({
      status: 'error',
      error: expect.stringContaining('There is no approval request "apr_000000000000"'),
    });

    expect(await inB.answerApprovals([{ id: requestId, decision: 'approve' }], 'user', { medium: 'cli', resume: false })).toEqual({
      status: 'answered',
      resumed: [],
      waiting: ['user__solo'],
    });
    expect(notes.runs()).toBe(0);
    expect(await inC.resumeDecided()).toEqual({
      status: 'resumed',
      resumed: [expect.objectContaining({ status: 'success', reply: 'tool said: wrote note 1' })],
    });
    expect(await inC.resumeDecided()).toEqual({ status: 'resumed', resumed: [] });
    expect(await inB.resumeDecided({ ids: [requestId] })).toEqual({ status: 'resumed', resumed: [] });
    expect(notes.runs()).toBe(1);
    const log = await session.conversation({ initiator: 'user', responder: 'solo' }).recent(20);
    expect(log.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    test.assertScriptsDone();
  });

  it('resuming an approval id this session does not know says where the requests are listed and how to name another session', async () => {
    test = createTestLegion({ participants: [userParticipant(), agentParticipant('solo', { delegation: 'none' })] });
    const session = await test.legion.sessions.create();
    const outcome = await session.resumeDecided({ ids: ['apr_000000000000'] });
    expect(outcome).toEqual({
      status: 'error',
      error: expect.stringMatching(
        /no approval request "apr_000000000000" in this session \(legion approvals --all lists .*--session names another session\)/,
      ),
    });
  });

  it('a question nothing waits for any more (its process gone, no waiting call in the log) cannot be answered: it says to send a new message and is withdrawn', async () => {
    test = asker();
    const session = await test.legion.sessions.create();
    // Recorded, no turn holds its conversation, and no communicate call of coordinator waits on it.
    await session.questions.append({
      kind: 'question',
      version: 1,
      id: 'q_0123456789ab',
      at: new Date().toISOString(),
      conversationId: 'coordinator__user',
      user: 'user',
      from: 'coordinator',
      chain: ['user', 'coordinator'],
      text: 'Still there?',
    });
    const inB = await second().sessions.get(session.id);
    const result = await inB.answerQuestion('q_0123456789ab', 'yes', { medium: 'cli' });
    expect(result).toEqual({ status: 'error', error: expect.stringContaining('Send your answer to coordinator as a new message instead') });
    expect(await session.questions.view('q_0123456789ab')).toMatchObject({ status: 'withdrawn' });
    expect(await inB.questions.list({ status: 'pending' })).toEqual([]);
  });
});
