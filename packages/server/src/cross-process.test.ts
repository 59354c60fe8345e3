import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Legion, ModelRequest } from '@legion-collective/core';
import { agentParticipant, createTestLegion, userParticipant, type ScriptEntry, type TestLegion } from '@legion-collective/core/testing';
import { ApiClient, type EventStream } from './server-test-support.js';
import { startServer, type RunningServer } from './start-server.js';
import type { ApprovalListResponse } from './wire/approvals.js';
import type { QuestionListResponse } from './wire/questions.js';

/** The text of the last tool result the model was sent. */
function lastResult(request: ModelRequest): string {
  const block = request.messages.at(-1)?.content[0];
  return block?.type === 'tool_result' ? block.content : '';
}

/** A surface (a REPL's, say) that is asked and never answers: it waits until it is withdrawn, and says why. */
function hangingSurface(reasons: unknown[]) {
  const hang = <T>(signal: AbortSignal): Promise<T> =>
    new Promise<T>((_, reject) =>
      signal.addEventListener(
        'abort',
        () => {
          reasons.push(signal.reason);
          reject(signal.reason);
        },
        { once: true },
      ),
    );
  return {
    medium: 'terminal',
    ask: (_question: unknown, { signal }: { signal: AbortSignal }) => hang<string>(signal),
    approve: (_requests: unknown, { signal }: { signal: AbortSignal }) => hang<never>(signal),
  };
}

describe('questions and approvals of a turn in another process, answered from the browser once', () => {
  let test: TestLegion;
  let server: RunningServer;
  let api: ApiClient;
  let stream: EventStream;
  let other: Legion;

  async function open(coordinator: ScriptEntry[]): Promise<void> {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: { coordinator },
    });
    server = await startServer({ legion: test.legion, followPollMs: 30 });
    api = new ApiClient(server.port, server.token);
    stream = api.events();
    await stream.opened;
    // The process whose turn asks: a REPL on the same workspace, attached and waiting.
    other = test.reopen();
  }
  afterEach(async () => {
    stream.close();
    await server.close();
    await other.close();
    await test.cleanup();
    expect(api.mismatches).toEqual([]);
  });

  it("lists another process's question and answers it: that turn goes on with the answer; a second answer is refused", async () => {
    await open([
      { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] },
      (request) => ({ text: `Using ${lastResult(request)}` }),
    ]);
    const reasons: unknown[] = [];
    other.attachUser(hangingSurface(reasons));
    const session = await other.sessions.create();
    const turn = other.send(session, 'start the server');
    const asked = await stream.until((s) => s.legion().find((event) => event.type === 'question:asked'), "the other process's question");
    expect(asked).toMatchObject({ remote: true, sessionId: session.id, from: 'coordinator', text: 'Which port?' });
    const listed = (await api.get('/api/questions')).json as QuestionListResponse;
    expect(listed.questions).toEqual([
      expect.objectContaining({
        id: asked['questionId'],
        sessionId: session.id,
        from: 'coordinator',
        user: 'user',
        chain: ['user', 'coordinator'],
      }),
    ]);
    expect((await api.post(`/api/questions/${String(asked['questionId'])}/answer`, { text: '8080' })).json).toEqual({ status: 'answered' });
    expect(await turn).toMatchObject({ status: 'success', reply: 'Using 8080' });
    // The other process's own surface was withdrawn, naming the browser.
    expect(reasons).toEqual([expect.objectContaining({ medium: 'web' })]);
    const again = await api.post(`/api/questions/${String(asked['questionId'])}/answer`, { text: '9090' });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({
      error: { code: 'already_answered', message: expect.stringContaining('already answered by user in web') },
    });
    expect((await api.get(`/api/questions?session=${session.id}`)).json).toEqual({ questions: [] });
    test.assertScriptsDone();
  });

  it("lists another process's approval request with its chain and approves it: that turn runs the tool once", async () => {
    await open([{ toolCalls: [{ name: 'file_write', input: { path: 'out.txt', content: 'written once' } }] }, { text: 'done' }]);
    const reasons: unknown[] = [];
    other.attachUser(hangingSurface(reasons));
    const session = await other.sessions.create();
    const turn = other.send(session, 'write the file');
    const requested = await stream.until(
      (s) => s.legion().find((event) => event.type === 'approval:requested'),
      "the other process's approval request",
    );
    expect(requested).toMatchObject({ remote: true, requester: 'coordinator', tool: 'file_write' });
    const pending = (await api.get(`/api/sessions/${session.id}/approvals`)).json as ApprovalListResponse;
    expect(pending.approvals).toEqual([
      expect.objectContaining({ id: requested['requestId'], status: 'pending', chain: ['user', 'coordinator'] }),
    ]);
    expect(
      (await api.post(`/api/sessions/${session.id}/approvals`, { answers: [{ id: requested['requestId'], decision: 'approve' }] })).json,
    ).toEqual({ status: 'answered' });
    expect(await turn).toMatchObject({ status: 'success', reply: 'done' });
    expect(readFileSync(join(test.root, 'out.txt'), 'utf8')).toBe('written once');
    expect(reasons).toHaveLength(1);
    const again = await api.post(`/api/sessions/${session.id}/approvals`, {
      answers: [{ id: requested['requestId'], decision: 'reject' }],
    });
    expect(again.status).toBe(409);
    const decided = (await api.get(`/api/sessions/${session.id}/approvals?status=all`)).json as ApprovalListResponse;
    expect(decided.approvals).toEqual([expect.objectContaining({ status: 'approved', decidedBy: 'user', decisionMedium: 'web' })]);
    expect(existsSync(join(test.root, 'out.txt'))).toBe(true);
    test.assertScriptsDone();
  });

  it("ends the asker's state when another process cancels the turn waiting on its question: nobody stays thinking", async () => {
    await open([{ toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] }]);
    other.attachUser(hangingSurface([]));
    const session = await other.sessions.create();
    const cancel = new AbortController();
    const turn = other.send(session, 'start the server', { signal: cancel.signal });
    await stream.until((s) => s.legion().find((event) => event.type === 'question:asked'), "the other process's question");
    const stateOf = async (id: string): Promise<string | undefined> =>
      ((await api.get('/api/participants')).json as { participants: Array<{ id: string; state: string }> }).participants.find(
        (participant) => participant.id === id,
      )?.state;
    // Esc on the REPL's question card: the turn is cancelled in that process.
    cancel.abort(new Error('cancelled at the terminal'));
    expect(await turn).toMatchObject({ status: 'error' });
    await stream.until((s) => s.legion().find((event) => event.type === 'question:withdrawn'), 'the withdrawal');
    await expect.poll(() => stateOf('coordinator')).toBe('idle');
    await expect.poll(() => stateOf('user')).toBe('idle');
    const states = stream.messages
      .filter((message) => message.event === 'state')
      .map((message) => message.data as { participantId: string; state: string });
    expect(states.filter((state) => state.participantId === 'coordinator').at(-1)?.state).toBe('idle');
  });
});
