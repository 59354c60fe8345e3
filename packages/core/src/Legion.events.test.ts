import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { LegionEvent } from './kernel/events/event-types.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from './testing/index.js';
import { defineTool } from './tools/tool.js';

/** A tool that changes the world (effect write), so it needs the user's approval by default. */
const touchTool = defineTool({
  name: 'touch_thing',
  description: 'Touches a thing',
  effect: 'write',
  inputSchema: z.object({ thing: z.string() }),
  async execute(input) {
    return { status: 'success', data: `touched ${input.thing}` };
  },
});

const readTool = defineTool({
  name: 'read_thing',
  description: 'Reads a thing',
  effect: 'read',
  inputSchema: z.object({ thing: z.string() }),
  async execute(input) {
    return { status: 'success', data: `read ${input.thing}` };
  },
});

function record(test: TestLegion): LegionEvent[] {
  const events: LegionEvent[] = [];
  test.legion.events.onAny((event) => events.push(event));
  return events;
}

describe('the events a remote UI relies on', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('numbers every event 1, 2, 3, … in order, and conversation events name their session; turn:start names the incoming message', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none' })],
      entryAgent: 'worker',
      scripts: { worker: [{ toolCalls: [{ id: 'r1', name: 'read_thing', input: { thing: 'a' } }] }, { text: 'done' }] },
    });
    test.legion.tools.register(readTool);
    const session = await test.legion.sessions.create();
    const events = record(test);

    await test.legion.send(session, 'go');

    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => events[0]!.seq + index));
    expect(events.map((event) => event.type)).toEqual([
      'session:updated',
      'turn:start',
      'message:sent',
      // The test's model is one nobody knows: said once, before its first request.
      'window:guessed',
      // Each model request's measure, just before it is sent.
      'context:usage',
      'message:sent',
      'tool:call',
      'tool:result',
      'message:sent',
      'context:usage',
      'text:delta',
      'message:sent',
      'turn:end',
    ]);
    for (const event of events) expect(event).toMatchObject({ sessionId: session.id });
    const start = events.find((event) => event.type === 'turn:start');
    const incoming = events.find((event) => event.type === 'message:sent');
    expect(start).toMatchObject({ participantId: 'worker', messageId: expect.any(String) });
    expect(incoming).toMatchObject({
      author: 'user',
      message: { id: start?.type === 'turn:start' ? start.messageId : 'missing', role: 'user' },
    });
    test.assertScriptsDone();
  });

  it('says when a session is created, renamed, or gets a new top-level message', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none' })],
      entryAgent: 'worker',
      scripts: { worker: [{ text: 'hi' }] },
    });
    const events = record(test);
    const first = await test.legion.sessions.resumeOrCreate();
    expect((await test.legion.sessions.resumeOrCreate()).id).toBe(first.id);
    const named = await test.legion.sessions.create({ title: 'planning' });
    await named.setTitle('planning, day 2');
    await test.legion.send(first, 'hello');

    const sessionEvents = events.filter((event) => event.type.startsWith('session:'));
    expect(sessionEvents).toEqual([
      { type: 'session:created', seq: expect.any(Number), sessionId: first.id, createdAt: first.info.createdAt },
      { type: 'session:created', seq: expect.any(Number), sessionId: named.id, title: 'planning', createdAt: named.info.createdAt },
      {
        type: 'session:updated',
        seq: expect.any(Number),
        sessionId: named.id,
        changed: ['title'],
        title: 'planning, day 2',
        lastActiveAt: named.info.lastActiveAt,
      },
      // Its first message starts work: the session is active, and takes its title from it.
      {
        type: 'session:updated',
        seq: expect.any(Number),
        sessionId: first.id,
        changed: ['lastActiveAt', 'title'],
        title: 'hello',
        lastActiveAt: first.info.lastActiveAt,
      },
    ]);
    expect((await test.reopen().sessions.get(named.id)).info.title).toBe('planning, day 2');
  });

  it('says an approval was requested (before the user is asked) and how it was decided, and by whom', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none' })],
      entryAgent: 'worker',
      scripts: { worker: [{ toolCalls: [{ id: 't1', name: 'touch_thing', input: { thing: 'door' } }] }, { text: 'done' }] },
    });
    test.legion.tools.register(touchTool);
    const session = await test.legion.sessions.create();
    const events = record(test);
    const seenWhenAsked: string[] = [];
    test.legion.attachUser({
      medium: 'test',
      approve: async (requests) => {
        seenWhenAsked.push(...events.map((event) => event.type));
        return requests.map((request) => ({ id: request.id, decision: 'approve' as const, reason: 'fine' }));
      },
    });

    await test.legion.send(session, 'go');

    expect(seenWhenAsked.at(-1)).toBe('approval:requested');
    const requested = events.find((event) => event.type === 'approval:requested');
    expect(requested).toEqual({
      type: 'approval:requested',
      seq: expect.any(Number),
      sessionId: session.id,
      conversationId: 'user__worker',
      requestId: expect.stringMatching(/^apr_/),
      batchId: expect.any(String),
      requester: 'worker',
      approver: 'user',
      tool: 'touch_thing',
      toolUseId: 't1',
      input: { thing: 'door' },
      reason: expect.any(String),
      chain: ['user'],
    });
    const decided = events.filter((event) => event.type === 'approval:decided');
    expect(decided).toEqual([
      {
        type: 'approval:decided',
        seq: expect.any(Number),
        sessionId: session.id,
        conversationId: 'user__worker',
        requestId: requested?.type === 'approval:requested' ? requested.requestId : 'missing',
        requester: 'worker',
        approver: 'user',
        tool: 'touch_thing',
        decision: 'approved',
        decidedBy: 'user',
        reason: 'fine',
        medium: 'test',
      },
    ]);
    expect(decided[0]!.seq).toBeGreaterThan(requested!.seq);
    const toolResult = events.find((event) => event.type === 'tool:result');
    expect(toolResult!.seq).toBeGreaterThan(decided[0]!.seq);
  });

  it('a durable pause answered later (approval_response, legion approve) is an approval:decided too', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none' })],
      entryAgent: 'worker',
      scripts: { worker: [{ toolCalls: [{ id: 't1', name: 'touch_thing', input: { thing: 'door' } }] }, { text: 'done' }] },
    });
    test.legion.tools.register(touchTool);
    const session = await test.legion.sessions.create();
    const events = record(test);
    const paused = await test.legion.send(session, 'go');
    expect(paused.status).toBe('paused');
    const requestId = paused.status === 'paused' ? paused.requests[0]!.id : '';
    expect(events.filter((event) => event.type === 'approval:requested')).toMatchObject([{ requestId, approver: 'user' }]);
    expect(events.filter((event) => event.type === 'approval:decided')).toEqual([]);

    const outcome = await session.answerApprovals([{ id: requestId, decision: 'reject', reason: 'not today', always: false }], 'user');

    expect(outcome.status).toBe('answered');
    expect(events.filter((event) => event.type === 'approval:decided')).toMatchObject([
      {
        requestId,
        decision: 'rejected',
        decidedBy: 'user',
        approver: 'user',
        requester: 'worker',
        reason: 'not today',
        sessionId: session.id,
      },
    ]);
  });

  it.skipIf((process.env['LEGION_TEST_BACKEND'] ?? 'file') !== 'file')("a warning about a session's files names the session", async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none' })],
      entryAgent: 'worker',
      scripts: { worker: [{ text: 'hi' }] },
    });
    const session = await test.legion.sessions.create();
    await test.legion.send(session, 'hello');
    appendFileSync(
      join(test.root, '.legion', 'sessions', session.id, 'conversations', 'user__worker.jsonl'),
      '{"kind":"message","id":"torn',
    );
    const reopened = test.reopen();
    const events: LegionEvent[] = [];
    reopened.events.onAny((event) => events.push(event));
    await (await reopened.sessions.get(session.id)).conversation({ initiator: 'user', responder: 'worker' }).recent(5);
    await reopened.close();

    const warnings = events.filter((event) => event.type === 'storage:warning');
    expect(warnings).toContainEqual(
      expect.objectContaining({ path: expect.stringMatching(/user__worker\.jsonl$/), sessionId: session.id }),
    );
  });
});
