import type { LegionEvents } from '../../kernel/events/event-types.js';
import type { Legion } from '../../Legion.js';
import { createTestLegion, mockParticipant, userParticipant, type TestLegion } from '../../testing/index.js';
import { followWorkspace, type WorkspaceFollower } from './follow-workspace.js';

type Sent = LegionEvents['message:sent'];

/** Resolves with the first remote message:sent event of `legion` that `match` accepts. */
function nextRemote(legion: Legion, match: (event: Sent) => boolean): Promise<Sent> {
  return new Promise((resolve) => {
    const off = legion.events.on('message:sent', ({ type: _type, seq: _seq, ...event }) => {
      if (event.remote && match(event)) {
        off();
        resolve(event);
      }
    });
  });
}

describe('following every session of a workspace', () => {
  let test: TestLegion;
  let other: Legion;
  let following: WorkspaceFollower | undefined;
  beforeEach(() => {
    test = createTestLegion({ participants: [userParticipant(), mockParticipant('echo', [{ trigger: '*', response: 'pong' }])] });
    other = test.reopen();
  });
  afterEach(async () => {
    following?.();
    await other.close();
    await test.cleanup();
  });

  it("shows another process's messages in a session that existed when it started, and only the new ones", async () => {
    const session = await other.sessions.create();
    await other.send(session, 'before');
    const seen: Array<{ sessionId: string; origin: string }> = [];
    following = await followWorkspace(test.legion, {
      pollMs: 20,
      onSession: (found, origin) => seen.push({ sessionId: found.sessionId, origin }),
    });
    expect(following.sessionIds()).toEqual([session.id]);
    const arrived = nextRemote(test.legion, (event) => event.message.role === 'assistant');
    await other.send(session, 'after');
    const reply = await arrived;
    expect(reply.sessionId).toBe(session.id);
    expect(reply.message.content).toEqual([{ type: 'text', text: 'pong' }]);
    // A session that was there at the start is not announced as new.
    expect(seen).toEqual([]);
  });

  it('finds a session another process creates after it started and shows that session from its first message', async () => {
    const seen: Array<{ sessionId: string; origin: string }> = [];
    following = await followWorkspace(test.legion, {
      pollMs: 20,
      sessionPollMs: 20,
      onSession: (found, origin) => seen.push({ sessionId: found.sessionId, origin }),
    });
    expect(following.sessionIds()).toEqual([]);
    const first = nextRemote(test.legion, (event) => event.message.role === 'user');
    const session = await other.sessions.create();
    await other.send(session, 'hello from elsewhere');
    const message = await first;
    expect(message.sessionId).toBe(session.id);
    expect(message.message.content).toEqual([{ type: 'text', text: 'hello from elsewhere' }]);
    expect(seen).toEqual([{ sessionId: session.id, origin: 'remote' }]);
    expect(following.sessionIds()).toEqual([session.id]);
  });

  it('follows a session this process creates without repeating what this process appended', async () => {
    const seen: Array<{ sessionId: string; origin: string }> = [];
    following = await followWorkspace(test.legion, {
      pollMs: 20,
      sessionPollMs: 20,
      onSession: (found, origin) => seen.push({ sessionId: found.sessionId, origin }),
    });
    const session = await test.legion.sessions.create();
    expect(seen).toEqual([{ sessionId: session.id, origin: 'local' }]);
    const remote: Sent[] = [];
    test.legion.events.on('message:sent', ({ type: _type, seq: _seq, ...event }) => {
      if (event.remote) remote.push(event);
    });
    await test.legion.send(session, 'mine');
    await following.check();
    expect(remote).toEqual([]);
    // Another process writing to it is shown.
    const theirs = nextRemote(test.legion, (event) => event.message.role === 'user');
    await other.send(await other.sessions.get(session.id), 'theirs');
    expect((await theirs).message.content).toEqual([{ type: 'text', text: 'theirs' }]);
    expect(seen).toHaveLength(1);
  });

  /** Resolves once the clock has passed `at`: what is written from then on is later than it. */
  async function after(at: string): Promise<void> {
    while (Date.now() <= Date.parse(at)) await new Promise((resolve) => setImmediate(resolve));
  }

  it('leaves a session idle at the start unfollowed, and follows it from then on once another process sends in it', async () => {
    const session = await other.sessions.create();
    await other.send(session, 'old');
    // Past the last message's time, not only lastActiveAt: that is stamped when the send starts, and a send may take more than a millisecond.
    await after(new Date().toISOString());
    const remote: Sent[] = [];
    test.legion.events.on('message:sent', ({ type: _type, seq: _seq, ...event }) => {
      if (event.remote) remote.push(event);
    });
    const seen: string[] = [];
    following = await followWorkspace(test.legion, {
      pollMs: 20,
      sessionPollMs: 20,
      idleMs: 0,
      listEveryMs: 60_000,
      onSession: (found) => seen.push(found.sessionId),
    });
    // Idle: no follower polls its logs.
    expect(following.sessionIds()).toEqual([]);
    const arrived = nextRemote(test.legion, (event) => event.message.role === 'assistant');
    await other.send(session, 'new');
    await arrived;
    expect(following.sessionIds()).toEqual([session.id]);
    // What it wrote while idle before the follower started is history, not news; it is not announced as new.
    expect(remote.map((event) => event.message.content)).toEqual([[{ type: 'text', text: 'new' }], [{ type: 'text', text: 'pong' }]]);
    expect(seen).toEqual([]);
  });

  it('follows an idle session when asked to (a UI opened it), without telling its history again', async () => {
    const session = await other.sessions.create();
    await other.send(session, 'old');
    // Past the last message's time, not only lastActiveAt: that is stamped when the send starts, and a send may take more than a millisecond.
    await after(new Date().toISOString());
    const remote: Sent[] = [];
    test.legion.events.on('message:sent', ({ type: _type, seq: _seq, ...event }) => {
      if (event.remote) remote.push(event);
    });
    following = await followWorkspace(test.legion, { pollMs: 60_000, sessionPollMs: 20, idleMs: 0 });
    expect(following.sessionIds()).toEqual([]);
    await following.ensure(session.id);
    expect(following.sessionIds()).toEqual([session.id]);
    expect(remote).toEqual([]);
    const arrived = nextRemote(test.legion, (event) => event.message.role === 'user');
    await other.send(await other.sessions.get(session.id), 'while open');
    expect((await arrived).message.content).toEqual([{ type: 'text', text: 'while open' }]);
  });

  it('stops every follower when stopped: nothing more arrives', async () => {
    const session = await other.sessions.create();
    following = await followWorkspace(test.legion, { pollMs: 20, sessionPollMs: 20 });
    following();
    const remote: Sent[] = [];
    test.legion.events.on('message:sent', ({ type: _type, seq: _seq, ...event }) => {
      if (event.remote) remote.push(event);
    });
    await other.send(session, 'unseen');
    const late = await test.legion.follow(session.id);
    await late.check();
    late();
    expect(remote).toEqual([]);
  });
});
