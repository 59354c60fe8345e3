import type { WireEvent, WireMessage } from '../api/wire.js';
import { initialState, type AppState } from './app-state.js';
import { reduceEvent } from './reduce-event.js';

const ref = { sessionId: 's1', conversationId: 'user__coordinator', initiator: 'user', responder: 'coordinator' };
let seq = 0;
const event = (fields: Record<string, unknown>): WireEvent => ({ seq: ++seq, ...ref, ...fields }) as unknown as WireEvent;
const reply = (id: string, text: string): Omit<WireMessage, 'author'> => ({
  id,
  role: 'assistant',
  content: [{ type: 'text', text }],
  at: '2026-11-26T00:00:00.000Z',
});
const start = (): AppState => ({ ...initialState, sessionId: 's1', messages: { user__coordinator: [] } });
const apply = (state: AppState, events: WireEvent[]): AppState => events.reduce((current, next) => reduceEvent(current, next, 0), state);

describe('reduceEvent', () => {
  it('streams deltas into the conversation until the reply is appended, which replaces them', () => {
    const streaming = apply(start(), [
      event({ type: 'turn:start', participantId: 'coordinator', chain: ['user'] }),
      event({ type: 'text:delta', participantId: 'coordinator', text: 'Hel' }),
      event({ type: 'text:delta', participantId: 'coordinator', text: 'lo' }),
    ]);
    expect(streaming.streams.user__coordinator).toEqual({ participantId: 'coordinator', text: 'Hello' });
    expect(streaming.activeTurns.user__coordinator).toEqual({ participantId: 'coordinator', chain: ['user'] });

    const done = apply(streaming, [
      event({ type: 'message:sent', author: 'coordinator', message: reply('m1', 'Hello') }),
      event({ type: 'turn:end', participantId: 'coordinator', chain: ['user'], outcome: 'succeeded', status: 'success', durationMs: 1 }),
    ]);
    expect(done.streams).toEqual({});
    expect(done.activeTurns).toEqual({});
    expect(done.messages.user__coordinator?.map((message) => `${message.author}: ${message.id}`)).toEqual(['coordinator: m1']);
  });

  it("lists an isolated agent's change awaiting review once, however often its event arrives", () => {
    const ready = event({
      type: 'worktree:ready',
      participantId: 'developer',
      callerId: 'coordinator',
      worktreeId: 'developer-3fa9c2',
      toolUseId: 'toolu_1',
      files: ['notes.txt', 'src/health.ts'],
    });
    expect(apply(start(), [ready, ready]).reviews).toEqual([
      {
        worktreeId: 'developer-3fa9c2',
        participantId: 'developer',
        callerId: 'coordinator',
        conversationId: 'user__coordinator',
        files: ['notes.txt', 'src/health.ts'],
      },
    ]);
  });

  it('keeps a message once when it arrives twice (REST page and event, or a replay)', () => {
    const sent = event({ type: 'message:sent', author: 'coordinator', message: reply('m1', 'Hi') });
    expect(apply(start(), [sent, sent]).messages.user__coordinator).toHaveLength(1);
  });

  it('learns conversations from events, for the graph', () => {
    const state = apply(start(), [
      event({
        type: 'turn:start',
        conversationId: 'coordinator__developer',
        initiator: 'coordinator',
        responder: 'developer',
        participantId: 'developer',
        chain: ['user', 'coordinator'],
      }),
    ]);
    expect(state.conversations.coordinator__developer).toMatchObject({ initiator: 'coordinator', responder: 'developer' });
    expect(Object.keys(state.activeTurns)).toEqual(['coordinator__developer']);
  });

  it('adds approval requests once, with the chain ending at the requester, and records their decision', () => {
    const requested = event({
      type: 'approval:requested',
      requestId: 'r1',
      batchId: 'b1',
      requester: 'developer',
      approver: 'user',
      tool: 'file_write',
      toolUseId: 't1',
      input: { path: 'a.txt', content: 'a' },
      reason: 'policy',
      chain: ['user', 'coordinator'],
    });
    const state = apply(start(), [requested, requested]);
    expect(state.approvals).toHaveLength(1);
    expect(state.approvals[0]).toMatchObject({ id: 'r1', status: 'pending', chain: ['user', 'coordinator', 'developer'] });
    const decided = apply(state, [
      event({
        type: 'approval:decided',
        requestId: 'r1',
        requester: 'developer',
        approver: 'user',
        tool: 'file_write',
        decision: 'rejected',
        decidedBy: 'user',
        reason: 'no',
      }),
    ]);
    expect(decided.approvals[0]).toMatchObject({ status: 'rejected', decidedBy: 'user', decisionReason: 'no' });
  });

  it('lists a question until it is answered or withdrawn', () => {
    const asked = event({
      type: 'question:asked',
      questionId: 'q1',
      user: 'user',
      from: 'developer',
      chain: ['user', 'coordinator', 'developer'],
      text: 'Port?',
      at: '2026-11-26T00:00:00.000Z',
    });
    const state = apply(start(), [asked, asked]);
    expect(state.questions.map((question) => question.text)).toEqual(['Port?']);
    expect(
      apply(state, [
        event({ type: 'question:answered', questionId: 'q1', user: 'user', from: 'developer', text: '80', answeredBy: 'user' }),
      ]).questions,
    ).toEqual([]);
    expect(
      apply(state, [event({ type: 'question:withdrawn', questionId: 'q1', user: 'user', from: 'developer', reason: 'turn ended' })])
        .questions,
    ).toEqual([]);
  });

  it('ignores the events of sessions it does not show', () => {
    const state = start();
    expect(reduceEvent(state, event({ type: 'text:delta', sessionId: 'other', participantId: 'coordinator', text: 'x' }), 0)).toBe(state);
  });

  it('shows a config reload (of any session) and a guessed window as notices, each once however often it is said', () => {
    const reload = { seq: ++seq, type: 'config:reloaded', changes: ['limits.maxIterations', 'mcpServers'], restartNeeded: ['mcpServers'] };
    const guessed = event({
      type: 'window:guessed',
      participantId: 'coordinator',
      provider: 'vllm',
      model: 'acme-7b',
      window: 8_192,
      text: 'Name the real one.',
    });
    const state = apply(start(), [reload as unknown as WireEvent, guessed, guessed, reload as unknown as WireEvent]);
    expect(state.notices).toEqual([
      { id: 'window:vllm/acme-7b', tone: 'warning', text: 'Name the real one.' },
      {
        id: 'config',
        tone: 'warning',
        text: 'The config changed; from the next message on: limits.maxIterations. Applies only after legion serve is restarted: mcpServers.',
      },
    ]);
  });
});
