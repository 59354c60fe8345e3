import { readdirSync } from 'node:fs';
import { agentParticipant, createTestLegion, mockParticipant, userParticipant, type TestLegion } from '../../testing/index.js';
import { textOf } from '../../kernel/message.js';

const openDescriptors = (): number => readdirSync('/proc/self/fd').length;

describe('a long-lived session', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('releases idle conversations (descriptors and loaded history) and reopens them from their logs when used again', async () => {
    test = createTestLegion({ participants: [userParticipant(), mockParticipant('echo', [{ trigger: '*', response: 'heard' }])] });
    const session = await test.legion.sessions.create();
    await session.send({ from: 'user', to: 'echo', message: 'first words', conversation: 'c0' });
    const early = openDescriptors();
    for (let index = 1; index <= 200; index++) {
      const result = await session.send({ from: 'user', to: 'echo', message: `message ${index}`, conversation: `c${index}` });
      expect(result.status).toBe('success');
    }
    // Each conversation holds a log descriptor while open: 200 of them would show here.
    expect(openDescriptors() - early).toBeLessThan(40);

    // The first conversation was released long ago; it comes back whole.
    await session.send({ from: 'user', to: 'echo', message: 'second words', conversation: 'c0' });
    const history = await session.conversation({ initiator: 'user', responder: 'echo', name: 'c0' }).history();
    expect(history.map((message) => textOf(message))).toEqual(['first words', 'heard', 'second words', 'heard']);
  });

  it('never releases a conversation whose turn is still running', async () => {
    // The busy conversation's turn waits on the test, not on a clock: it is running for as long as the test needs.
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    let turnEnded = false;
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('slow'), mockParticipant('echo', [{ trigger: '*', response: 'heard' }])],
      scripts: { slow: [async () => (started(), await finished, (turnEnded = true), { text: 'waited' }), { text: 'quick' }] },
    });
    const session = await test.legion.sessions.create();
    const waiting = session.send({ from: 'user', to: 'slow', message: 'wait for me', conversation: 'busy' });
    try {
      await running;
      // Enough other conversations to release every idle one.
      for (let index = 0; index < 100; index++)
        await session.send({ from: 'user', to: 'echo', message: `n${index}`, conversation: `other${index}` });
      // Asked not to wait, a message is refused by the running turn's own in-process queue: the conversation was kept
      // open (a reopened one would know only the lease, and name its holder).
      await expect(session.send({ from: 'user', to: 'slow', message: 'now?', conversation: 'busy', ifBusy: 'fail' })).rejects.toMatchObject(
        {
          code: 'conversation_busy',
          details: { holder: 'a turn in this process' },
        },
      );
      expect(turnEnded).toBe(false);
      // A second message on the busy conversation queues behind the running turn (same object, same in-process queue).
      const queued = session.send({ from: 'user', to: 'slow', message: 'after', conversation: 'busy' });
      finish();
      expect(await waiting).toMatchObject({ status: 'success', reply: 'waited' });
      expect(await queued).toMatchObject({ status: 'success', reply: 'quick' });
    } finally {
      finish();
    }
    const history = await session.conversation({ initiator: 'user', responder: 'slow', name: 'busy' }).history();
    expect(history.map((message) => textOf(message))).toEqual(['wait for me', 'waited', 'after', 'quick']);
  });

  it('releases idle sessions beyond the open limit; a released session a caller still holds keeps working', async () => {
    test = createTestLegion({ participants: [userParticipant(), mockParticipant('echo', [{ trigger: '*', response: 'heard' }])] });
    const first = await test.legion.sessions.create();
    await first.send({ from: 'user', to: 'echo', message: 'one', conversation: 'c' });
    const early = openDescriptors();
    for (let index = 0; index < 60; index++) {
      const session = await test.legion.sessions.create();
      expect((await session.send({ from: 'user', to: 'echo', message: `s${index}`, conversation: 'c' })).status).toBe('success');
    }
    // Each open session holds at least its conversation log: 60 kept open would show 60 here.
    expect(openDescriptors() - early).toBeLessThan(50);
    await first.send({ from: 'user', to: 'echo', message: 'two', conversation: 'c' });
    expect(
      (await (await test.legion.sessions.get(first.id)).conversation({ initiator: 'user', responder: 'echo', name: 'c' }).history()).map(
        (message) => textOf(message),
      ),
    ).toEqual(['one', 'heard', 'two', 'heard']);
  });

  it('gives concurrent lookups of one session the same Session, so its conversations have one turn queue', async () => {
    test = createTestLegion({ participants: [userParticipant(), mockParticipant('echo', [{ trigger: '*', response: 'heard' }])] });
    const created = await test.legion.sessions.create();
    const fresh = test.reopen();
    const [a, b, latest] = await Promise.all([fresh.sessions.get(created.id), fresh.sessions.get(created.id), fresh.sessions.latest()]);
    expect(a).toBe(b);
    expect(latest).toBe(a);
    fresh.close();
  });
});
