import { appendFileSync, mkdirSync, truncateSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { LegionEvent, LegionEvents } from '../../kernel/events/event-types.js';
import type { Legion } from '../../Legion.js';
import { agentParticipant, createTestLegion, mockParticipant, userParticipant, type TestLegion } from '../../testing/index.js';
import { defineTool } from '../../tools/tool.js';

type Sent = LegionEvents['message:sent'] & { seq: number };
type Warning = LegionEvents['storage:warning'];

/** Every message:sent event of a Legion, and a way to wait until some arrive (events, not sleeps). */
function sentEvents(legion: Legion): { all: Sent[]; remote(): Sent[]; until(count: number): Promise<Sent[]> } {
  const all: Sent[] = [];
  const waiters: Array<() => void> = [];
  legion.events.on('message:sent', ({ type: _type, ...event }) => {
    all.push(event);
    for (const wake of waiters.splice(0)) wake();
  });
  const remote = (): Sent[] => all.filter((event) => event.remote);
  return {
    all,
    remote,
    until: (count) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${count} remote messages, got ${remote().length}`)), 10_000);
        const look = (): void => {
          if (remote().length >= count) {
            clearTimeout(timer);
            resolve(remote());
          } else waiters.push(look);
        };
        look();
      }),
  };
}

function warnings(legion: Legion): Warning[] {
  const seen: Warning[] = [];
  legion.events.on('storage:warning', ({ type: _type, seq: _seq, ...warning }) => seen.push(warning));
  return seen;
}

const line = (id: string, role: 'user' | 'assistant', text: string): string =>
  `${JSON.stringify({ kind: 'message', id, at: '2026-01-01T00:00:00.000Z', role, content: [{ type: 'text', text }] })}\n`;

describe('following the conversation logs that another process appends to', () => {
  let test: TestLegion;
  let other: Legion | undefined;
  afterEach(async () => {
    await other?.close();
    other = undefined;
    await test?.cleanup();
  });

  function workspace(): TestLegion {
    test = createTestLegion({ participants: [userParticipant(), mockParticipant('echo', [{ trigger: '*', response: 'pong' }])] });
    other = test.reopen();
    return test;
  }

  it("turns another Legion's appends into message:sent events, as its own would have been, conversations that appear later included", async () => {
    workspace();
    const session = await test.legion.sessions.create();
    const sent = sentEvents(test.legion);
    const follower = await test.legion.follow(session.id);

    await other!.send(await other!.sessions.get(session.id), 'ping', { to: 'echo' });
    await other!.send(await other!.sessions.get(session.id), 'again', { to: 'echo', conversation: 'side' });
    const remote = await sent.until(4);

    const logged = [
      ...(await (await other!.sessions.get(session.id)).conversation({ initiator: 'user', responder: 'echo' }).recent(10)),
      ...(await (await other!.sessions.get(session.id)).conversation({ initiator: 'user', responder: 'echo', name: 'side' }).recent(10)),
    ];
    expect(remote.map(({ seq: _seq, ...event }) => event)).toEqual([
      {
        sessionId: session.id,
        conversationId: 'user__echo',
        initiator: 'user',
        responder: 'echo',
        message: logged[0],
        author: 'user',
        remote: true,
      },
      {
        sessionId: session.id,
        conversationId: 'user__echo',
        initiator: 'user',
        responder: 'echo',
        message: logged[1],
        author: 'echo',
        remote: true,
      },
      {
        sessionId: session.id,
        conversationId: 'user__echo__side',
        initiator: 'user',
        responder: 'echo',
        name: 'side',
        message: logged[2],
        author: 'user',
        remote: true,
      },
      {
        sessionId: session.id,
        conversationId: 'user__echo__side',
        initiator: 'user',
        responder: 'echo',
        name: 'side',
        message: logged[3],
        author: 'echo',
        remote: true,
      },
    ]);
    expect(follower.sessionId).toBe(session.id);
    follower();
  });

  it('does not repeat what this Legion appended itself', async () => {
    workspace();
    const session = await test.legion.sessions.create();
    const sent = sentEvents(test.legion);
    const follower = await test.legion.follow(session);

    await test.legion.send(session, 'mine', { to: 'echo' });
    await follower.check();
    expect(sent.all.map((event) => [event.author, event.remote])).toEqual([
      ['user', undefined],
      ['echo', undefined],
    ]);

    await other!.send(await other!.sessions.get(session.id), 'theirs', { to: 'echo' });
    await follower.check();
    await test.legion.send(session, 'mine again', { to: 'echo' });
    await follower.check();
    expect(
      sent.all.map((event) => [event.message.content[0]!.type === 'text' ? event.message.content[0]!.text : '', event.remote ?? false]),
    ).toEqual([
      ['mine', false],
      ['pong', false],
      ['theirs', true],
      ['pong', true],
      ['mine again', false],
      ['pong', false],
    ]);
  });

  it('starts at the end of what is there, or exactly after a cursor an earlier follower gave', async () => {
    workspace();
    const session = await test.legion.sessions.create();
    await other!.send(await other!.sessions.get(session.id), 'before', { to: 'echo' });
    const sent = sentEvents(test.legion);

    const first = await test.legion.follow(session.id);
    await first.check();
    expect(sent.all).toEqual([]);
    await other!.send(await other!.sessions.get(session.id), 'seen', { to: 'echo' });
    await sent.until(2);
    const cursor = first.cursor();
    first();

    // While nobody follows: more in the known conversation, and a new one.
    await other!.send(await other!.sessions.get(session.id), 'missed', { to: 'echo' });
    await other!.send(await other!.sessions.get(session.id), 'new', { to: 'echo', conversation: 'later' });
    const texts = (): string[] =>
      sent.remote().map((event) => (event.message.content[0]!.type === 'text' ? event.message.content[0]!.text : ''));
    expect(texts()).toEqual(['seen', 'pong']);

    const second = await test.legion.follow(session.id, { from: cursor });
    expect(texts()).toEqual(['seen', 'pong', 'missed', 'pong', 'new', 'pong']);
    second();
  });

  it('waits for a line still being written, and says what it skips or finds cut, then follows on', async () => {
    workspace();
    const session = await test.legion.sessions.create();
    await other!.send(await other!.sessions.get(session.id), 'hello', { to: 'echo' });
    const file = join(test.root, '.legion', 'sessions', session.id, 'conversations', 'user__echo.jsonl');
    const sent = sentEvents(test.legion);
    const warned = warnings(test.legion);
    const follower = await test.legion.follow(session.id);

    const whole = line('m-1', 'user', 'written in two parts');
    appendFileSync(file, whole.slice(0, 30));
    await follower.check();
    expect(sent.all).toEqual([]);
    appendFileSync(file, whole.slice(30));
    await follower.check();
    expect(sent.remote().map((event) => event.message.id)).toEqual(['m-1']);
    expect(warned).toEqual([]);

    const garbageAt = statSync(file).size;
    appendFileSync(file, `not json at all\n${line('m-2', 'assistant', 'after the garbage')}`);
    await follower.check();
    expect(sent.remote().map((event) => [event.message.id, event.author])).toEqual([
      ['m-1', 'user'],
      ['m-2', 'echo'],
    ]);
    expect(warned).toEqual([
      {
        path: expect.stringMatching(/user__echo\.jsonl$/),
        offset: garbageAt,
        problem: expect.stringContaining('not a conversation entry'),
        sessionId: session.id,
      },
    ]);

    truncateSync(file, garbageAt);
    await follower.check();
    expect(warned[1]).toEqual({
      path: expect.stringMatching(/user__echo\.jsonl$/),
      offset: garbageAt,
      problem: expect.stringContaining('cut or replaced'),
      sessionId: session.id,
    });
    appendFileSync(file, line('m-3', 'user', 'after the cut'));
    await follower.check();
    expect(sent.remote().map((event) => event.message.id)).toEqual(['m-1', 'm-2', 'm-3']);
    expect(warned).toHaveLength(2);
  });

  it('reports a log it cannot read once, without stopping the others; close() stops every follower', async () => {
    workspace();
    const session = await test.legion.sessions.create();
    const conversations = join(test.root, '.legion', 'sessions', session.id, 'conversations');
    mkdirSync(conversations, { recursive: true });
    const sent = sentEvents(test.legion);
    const warned = warnings(test.legion);
    const follower = await test.legion.follow(session.id);
    appendFileSync(join(conversations, 'not-a-conversation.jsonl'), line('x-1', 'user', 'stray'));
    appendFileSync(
      join(conversations, 'user__echo.jsonl'),
      `${JSON.stringify({ kind: 'header', version: 99, conversationId: 'user__echo', initiator: 'user', responder: 'echo', createdAt: '2026-01-01T00:00:00.000Z' })}\n`,
    );
    appendFileSync(join(conversations, 'user__echo.jsonl'), line('x-2', 'user', 'from the future'));
    await other!.send(await other!.sessions.get(session.id), 'fine', { to: 'echo', conversation: 'ok' });
    await follower.check();
    await follower.check();

    expect(sent.remote().map((event) => event.conversationId)).toEqual(['user__echo__ok', 'user__echo__ok']);
    expect(warned.map((warning) => warning.problem).sort()).toEqual([
      expect.stringMatching(/^not followed: .*newer Legion \(format 99/),
      expect.stringMatching(/^not followed: its name is no conversation id/),
    ]);

    await test.legion.close();
    appendFileSync(join(conversations, 'user__echo__ok.jsonl'), line('x-3', 'user', 'after close'));
    await follower.check();
    expect(sent.remote()).toHaveLength(2);
  });

  it("tells another process's approval requests and decisions too, and not this process's own again", async () => {
    const touchTool = defineTool({
      name: 'touch_thing',
      description: 'Touches a thing',
      effect: 'write',
      inputSchema: z.object({ thing: z.string() }),
      async execute(input) {
        return { status: 'success', data: `touched ${input.thing}` };
      },
    });
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none' })],
      entryAgent: 'worker',
      scripts: {
        worker: [
          { toolCalls: [{ id: 't1', name: 'touch_thing', input: { thing: 'door' } }] },
          { text: 'done' },
          { toolCalls: [{ id: 't2', name: 'touch_thing', input: { thing: 'window' } }] },
          { text: 'done again' },
        ],
      },
    });
    other = test.reopen();
    for (const legion of [test.legion, other]) legion.tools.register(touchTool);
    const session = await test.legion.sessions.create();
    const heard: LegionEvent[] = [];
    test.legion.events.onAny((event) => {
      if (event.type.startsWith('approval:')) heard.push(event);
    });
    const follower = await test.legion.follow(session.id);

    const theirs = await other.send(await other.sessions.get(session.id), 'go');
    const theirId = theirs.status === 'paused' ? theirs.requests[0]!.id : 'missing';
    await follower.check();
    expect(heard).toEqual([
      {
        type: 'approval:requested',
        seq: expect.any(Number),
        sessionId: session.id,
        conversationId: 'user__worker',
        requestId: theirId,
        batchId: expect.any(String),
        requester: 'worker',
        approver: 'user',
        tool: 'touch_thing',
        toolUseId: 't1',
        input: { thing: 'door' },
        reason: expect.any(String),
        chain: ['user'],
        remote: true,
      },
    ]);
    await (await other.sessions.get(session.id)).answerApprovals([{ id: theirId, decision: 'approve', reason: 'go ahead' }], 'user');
    await follower.check();
    expect(heard[1]).toEqual({
      type: 'approval:decided',
      seq: expect.any(Number),
      sessionId: session.id,
      conversationId: 'user__worker',
      requestId: theirId,
      requester: 'worker',
      approver: 'user',
      tool: 'touch_thing',
      decision: 'approved',
      decidedBy: 'user',
      reason: 'go ahead',
      remote: true,
    });

    // This process's own request and decision: told once, when it wrote them.
    const mine = await test.legion.send(session, 'again');
    const myId = mine.status === 'paused' ? mine.requests[0]!.id : 'missing';
    await session.answerApprovals([{ id: myId, decision: 'reject' }], 'user');
    await follower.check();
    expect(
      heard
        .slice(2)
        .map((event) => [event.type, 'requestId' in event ? event.requestId : '', 'remote' in event ? event.remote : undefined]),
    ).toEqual([
      ['approval:requested', myId, undefined],
      ['approval:decided', myId, undefined],
    ]);
    test.assertScriptsDone();
  });
});
