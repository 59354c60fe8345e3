import type { LegionEvent } from '@legion-collective/core';
import { ParticipantStates, type ParticipantState } from './participant-states.js';

// The lifecycle as core emits it for user → coordinator → developer (and the developer → user
// question), fed to the state function; what each participant shows after each step.
const SESSION = 's1';
const TOP = { sessionId: SESSION, conversationId: 'user__coordinator', initiator: 'user', responder: 'coordinator' };
const DELEGATED = { sessionId: SESSION, conversationId: 'coordinator__developer', initiator: 'coordinator', responder: 'developer' };
const ASKED = { sessionId: SESSION, conversationId: 'developer__user', initiator: 'developer', responder: 'user' };
const USERS = new Set(['user']);

type Ref = typeof TOP;
let seq = 0;
/** An event as emitted, before the bus numbers it (`Omit` distributed over the union). */
type Unnumbered = { [Name in LegionEvent['type']]: Omit<Extract<LegionEvent, { type: Name }>, 'seq'> }[LegionEvent['type']];
const event = (payload: Unnumbered): LegionEvent => ({ ...payload, seq: ++seq }) as LegionEvent;
const start = (ref: Ref, resumed = false) =>
  event({ type: 'turn:start', ...ref, participantId: ref.responder, chain: [ref.initiator], ...(resumed ? {} : { messageId: `m${seq}` }) });
const end = (ref: Ref, outcome: 'succeeded' | 'failed' | 'cancelled' | 'paused', code?: string) =>
  event({
    type: 'turn:end',
    ...ref,
    participantId: ref.responder,
    chain: [ref.initiator],
    outcome,
    status: outcome === 'succeeded' ? 'success' : outcome === 'paused' ? 'paused' : 'error',
    ...(code ? { code } : {}),
    durationMs: 1,
  });
const toolUse = (id: string, name: string, input: unknown) => ({ type: 'tool_use' as const, id, name, input });
const call = (ref: Ref, id: string, name: string, input: unknown = {}) =>
  event({ type: 'tool:call', ...ref, participantId: ref.responder, toolUse: toolUse(id, name, input) });
const result = (ref: Ref, id: string, name: string) =>
  event({
    type: 'tool:result',
    ...ref,
    participantId: ref.responder,
    toolUse: toolUse(id, name, {}),
    result: { type: 'tool_result', toolUseId: id, content: 'ok' },
    durationMs: 1,
  });
const delegate = (id = 'toolu_1') => call(TOP, id, 'communicate', { to: 'developer', message: 'do it' });
const approvalRequested = (requestId: string) =>
  event({
    type: 'approval:requested',
    sessionId: SESSION,
    conversationId: DELEGATED.conversationId,
    requestId,
    batchId: 'b1',
    requester: 'developer',
    approver: 'user',
    tool: 'file_write',
    toolUseId: 'call_w',
    input: {},
    reason: 'writes need approval',
    chain: ['user', 'coordinator'],
  });
const approvalDecided = (requestId: string) =>
  event({
    type: 'approval:decided',
    sessionId: SESSION,
    conversationId: DELEGATED.conversationId,
    requestId,
    requester: 'developer',
    approver: 'user',
    tool: 'file_write',
    decision: 'approved',
    decidedBy: 'user',
  });
const question = { sessionId: SESSION, conversationId: ASKED.conversationId, questionId: 'q1', user: 'user', from: 'developer' };

function run(...events: LegionEvent[]): { shown: (id: string) => ParticipantState; changes: Array<[string, string]> } {
  const changes: Array<[string, string]> = [];
  const states = new ParticipantStates(
    (id, state) => changes.push([id, state.state]),
    (id) => USERS.has(id),
  );
  for (const each of events) states.observe(each);
  return { shown: (id) => states.get(id), changes };
}

const names = (shown: (id: string) => ParticipantState) =>
  Object.fromEntries(['user', 'coordinator', 'developer'].map((id) => [id, shown(id).state]));

describe('participant states from the turn lifecycle', () => {
  it('a delegation: the caller waits for its delegate, who thinks, runs a tool; all idle once it succeeded', () => {
    const during = run(start(TOP), delegate(), start(DELEGATED), call(DELEGATED, 'c1', 'file_read'));
    expect(names(during.shown)).toEqual({ user: 'idle', coordinator: 'delegate', developer: 'tool' });
    expect(during.shown('coordinator').detail).toBe('developer');
    expect(during.shown('developer')).toMatchObject({ detail: 'file_read', conversationId: DELEGATED.conversationId });
    const after = run(
      start(TOP),
      delegate(),
      start(DELEGATED),
      call(DELEGATED, 'c1', 'file_read'),
      result(DELEGATED, 'c1', 'file_read'),
      end(DELEGATED, 'succeeded'),
      result(TOP, 'toolu_1', 'communicate'),
      end(TOP, 'succeeded'),
    );
    expect(names(after.shown)).toEqual({ user: 'idle', coordinator: 'idle', developer: 'idle' });
    expect(after.shown('developer').outcome).toBeUndefined();
  });

  it('a failure (a provider 400) and a cancel leave the participant idle, saying how its last turn ended', () => {
    const failed = run(start(TOP), delegate(), start(DELEGATED), end(DELEGATED, 'failed', 'provider_bad_request'));
    expect(failed.shown('developer')).toEqual({ state: 'idle', outcome: 'failed', code: 'provider_bad_request' });
    expect(failed.shown('coordinator').state).toBe('delegate');
    const cancelled = run(
      start(TOP),
      delegate(),
      start(DELEGATED),
      end(DELEGATED, 'cancelled', 'cancelled'),
      end(TOP, 'cancelled', 'cancelled'),
    );
    expect(names(cancelled.shown)).toEqual({ user: 'idle', coordinator: 'idle', developer: 'idle' });
    expect(cancelled.shown('coordinator').outcome).toBe('cancelled');
    // The next turn starts afresh: the old ending is not shown on a running participant.
    const again = run(start(TOP), end(TOP, 'failed', 'x'), start(TOP));
    expect(again.shown('coordinator')).toMatchObject({ state: 'thinking' });
    expect(again.shown('coordinator').outcome).toBeUndefined();
  });

  it('a text delta after its turn ended does not bring the participant back', () => {
    const late = run(
      start(TOP),
      end(TOP, 'cancelled', 'cancelled'),
      event({ type: 'text:delta', ...TOP, participantId: 'coordinator', text: 'late' }),
    );
    expect(late.shown('coordinator').state).toBe('idle');
  });

  it('a question asked live: the asker and the user wait for you, the caller for its delegate; Stop ends it all', () => {
    const asking = [
      start(TOP),
      delegate(),
      start(DELEGATED),
      call(DELEGATED, 'c_ask', 'communicate', { to: 'user', message: 'Which port?' }),
      start(ASKED),
      event({ type: 'question:asked', ...question, chain: ['user', 'coordinator', 'developer'], text: 'Which port?', at: 'now' }),
    ];
    const asked = run(...asking);
    expect(names(asked.shown)).toEqual({ user: 'user', coordinator: 'delegate', developer: 'user' });
    expect(asked.shown('user').detail).toBe('question from developer');
    expect(asked.shown('user').askedBy).toBe('developer');
    // Each waits where its own turn is: the asker in the conversation its caller opened (a client
    // nests its turn there), the user in the question's.
    expect(asked.shown('developer')).toMatchObject({ detail: 'question', conversationId: DELEGATED.conversationId });
    expect(asked.shown('user').conversationId).toBe(ASKED.conversationId);
    const stopped = run(
      ...asking,
      event({ type: 'question:withdrawn', ...question, reason: 'the asking turn ended' }),
      end(ASKED, 'cancelled', 'cancelled'),
      end(DELEGATED, 'cancelled', 'cancelled'),
      end(TOP, 'cancelled', 'cancelled'),
    );
    expect(names(stopped.shown)).toEqual({ user: 'idle', coordinator: 'idle', developer: 'idle' });
    // The asker's turn was stopped; the user had none to stop.
    expect(stopped.shown('developer').outcome).toBe('cancelled');
    expect(stopped.shown('user').outcome).toBeUndefined();
  });

  it("a user's open turn is a question put to them, never 'thinking'", () => {
    expect(run(start(TOP), delegate(), start(DELEGATED), start(ASKED)).shown('user').state).toBe('user');
  });

  it('an approval pauses the chain: waiting for you; the decision resumes it; idle when it succeeded', () => {
    const paused = [
      start(TOP),
      delegate(),
      start(DELEGATED),
      call(DELEGATED, 'call_w', 'file_write'),
      approvalRequested('apr_1'),
      end(DELEGATED, 'paused'),
      end(TOP, 'paused'),
    ];
    const waiting = run(...paused);
    expect(names(waiting.shown)).toEqual({ user: 'user', coordinator: 'delegate', developer: 'approval' });
    expect(waiting.shown('developer').detail).toBe('file_write');
    const decided = run(...paused, approvalDecided('apr_1'), start(TOP, true), start(DELEGATED, true));
    expect(names(decided.shown)).toEqual({ user: 'idle', coordinator: 'delegate', developer: 'tool' });
    const done = run(
      ...paused,
      approvalDecided('apr_1'),
      start(TOP, true),
      start(DELEGATED, true),
      result(DELEGATED, 'call_w', 'file_write'),
      end(DELEGATED, 'succeeded'),
      result(TOP, 'toolu_1', 'communicate'),
      end(TOP, 'succeeded'),
    );
    expect(names(done.shown)).toEqual({ user: 'idle', coordinator: 'idle', developer: 'idle' });
  });

  it('after a restart, the pending request read from the records puts the chain back to waiting', () => {
    const changes: Array<[string, string]> = [];
    const states = new ParticipantStates(
      (id, state) => changes.push([id, state.state]),
      (id) => USERS.has(id),
    );
    states.seed('apr_1', {
      kind: 'approval',
      sessionId: SESSION,
      conversationId: DELEGATED.conversationId,
      participantId: 'developer',
      asked: 'user',
      detail: 'file_write',
      chain: ['user', 'coordinator'],
      chainConversations: { coordinator: TOP.conversationId },
    });
    expect(names((id) => states.get(id))).toEqual({ user: 'user', coordinator: 'delegate', developer: 'approval' });
    expect(states.get('coordinator')).toMatchObject({ detail: 'developer', conversationId: TOP.conversationId });
    // Its decision (this server answers it) ends the wait; the resumed turns then run and end as usual.
    states.observe(approvalDecided('apr_1'));
    expect(names((id) => states.get(id))).toEqual({ user: 'idle', coordinator: 'idle', developer: 'idle' });
    expect(changes).toContainEqual(['developer', 'approval']);
  });

  it('after a restart, a pending question puts its asker back to waiting for you, in its own turn’s conversation', () => {
    const states = new ParticipantStates(
      () => undefined,
      (id) => USERS.has(id),
    );
    states.seed('q1', {
      kind: 'question',
      sessionId: SESSION,
      conversationId: ASKED.conversationId,
      participantId: 'developer',
      asked: 'user',
      detail: 'developer',
      chain: ['user', 'coordinator', 'developer'],
      // From the question record's frames (seed-states.ts).
      chainConversations: { coordinator: TOP.conversationId, developer: DELEGATED.conversationId },
    });
    expect(names((id) => states.get(id))).toEqual({ user: 'user', coordinator: 'delegate', developer: 'user' });
    expect(states.get('developer')).toMatchObject({ detail: 'question', conversationId: DELEGATED.conversationId });
    expect(states.get('coordinator').conversationId).toBe(TOP.conversationId);
    expect(states.get('user')).toMatchObject({ askedBy: 'developer', conversationId: ASKED.conversationId });
  });

  it('tells each change once, and nothing for a delta', () => {
    const { changes } = run(
      start(TOP),
      event({ type: 'text:delta', ...TOP, participantId: 'coordinator', text: 'a' }),
      event({ type: 'text:delta', ...TOP, participantId: 'coordinator', text: 'b' }),
      end(TOP, 'succeeded'),
    );
    expect(changes).toEqual([
      ['coordinator', 'thinking'],
      ['coordinator', 'idle'],
    ]);
  });
});
