import {
  agentParticipant,
  createTestLegion,
  mockParticipant,
  recordSampleRun,
  userParticipant,
  type ScriptEntry,
  type TestLegion,
} from '@legion-collective/core/testing';
import type { Legion } from '@legion-collective/core';
import { LEGION_EVENT_NAMES, LegionEventSchemas } from '@legion-collective/core/vocabulary';
import { getEventListeners } from 'node:events';
import { ApiClient, undocumentedFields, type EventStream, type StreamMessage } from './server-test-support.js';
import { startServer, type RunningServer } from './start-server.js';
import {
  LegionWireEventSchema,
  ResetEventDataSchema,
  SessionEventDataSchema,
  StateEventDataSchema,
  STREAMED_EVENT_NAMES,
} from './wire/events.js';

const SCHEMAS = {
  legion: LegionWireEventSchema,
  state: StateEventDataSchema,
  session: SessionEventDataSchema,
  reset: ResetEventDataSchema,
} as const;

/** Every message of a stream matches the wire schema of its event name. */
function expectWireMessages(messages: readonly StreamMessage[]): void {
  for (const message of messages) {
    const schema = SCHEMAS[message.event as keyof typeof SCHEMAS];
    expect(schema, `event name ${message.event}`).toBeDefined();
    const parsed = schema.safeParse(message.data);
    expect(parsed.success, `${message.event} ${JSON.stringify(message.data)}: ${parsed.error?.message}`).toBe(true);
    expect(undocumentedFields(message.data, parsed.data, `event: ${message.event}`)).toBeUndefined();
  }
}

function seqOf(id: string | undefined): number {
  return Number(id!.split('-')[1]);
}

describe('the wire events are core events', () => {
  it("carries every core event but the declared one, each as core's schema plus the envelope", () => {
    const wireTypes = LegionWireEventSchema.options.map((option) => option.shape.type.value);
    expect([...wireTypes].sort()).toEqual([...STREAMED_EVENT_NAMES].sort());
    expect(LEGION_EVENT_NAMES.filter((name) => !(STREAMED_EVENT_NAMES as readonly string[]).includes(name))).toEqual(['context:usage']);
    for (const option of LegionWireEventSchema.options) {
      const name = option.shape.type.value;
      expect(Object.keys(option.shape).sort(), name).toEqual([...Object.keys(LegionEventSchemas[name].shape), 'type', 'seq'].sort());
    }
  });

  it('parses every streamed event of a real run back to itself', async () => {
    const events = (await recordSampleRun()).filter((event) => (STREAMED_EVENT_NAMES as readonly string[]).includes(event.type));
    expect(events.length).toBeGreaterThan(10);
    for (const event of events) {
      const parsed = LegionWireEventSchema.safeParse(event);
      expect(parsed.success, `${event.type}: ${parsed.error?.message}`).toBe(true);
      expect(undocumentedFields(event, parsed.data, event.type)).toBeUndefined();
    }
  });
});

describe('the event stream of legion serve', () => {
  let test: TestLegion;
  let server: RunningServer;
  let api: ApiClient;
  const streams: EventStream[] = [];
  let other: Legion | undefined;

  async function open(lead: ScriptEntry[] = [], journal?: { maxEvents: number }): Promise<void> {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('lead'), mockParticipant('echo', [{ trigger: '*', response: 'pong' }])],
      entryAgent: 'lead',
      scripts: { lead },
    });
    server = await startServer({ legion: test.legion, heartbeatMs: 50, followPollMs: 30, ...(journal ? { journal } : {}) });
    api = new ApiClient(server.port, server.token);
  }
  function events(options: { session?: string; lastEventId?: string; deltas?: string } = {}): EventStream {
    const stream = api.events(options);
    streams.push(stream);
    return stream;
  }
  async function turn(session: string, text: string, to = 'echo'): Promise<void> {
    expect((await api.post(`/api/sessions/${session}/messages`, { text, to })).status).toBe(202);
  }
  const ends = (stream: EventStream, count: number) =>
    stream.until((s) => s.legion().filter((event) => event.type === 'turn:end').length >= count || undefined, `${count} turn:end`);

  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await other?.close();
    other = undefined;
    await server.close();
    await test.cleanup();
    expect(api.mismatches).toEqual([]);
  });

  it("streams a real turn as it happens: Legion's events and the participant's state, ids <epoch>-<seq> without gaps", async () => {
    await open([{ text: 'Hello from the model.', usage: { inputTokens: 10, outputTokens: 5 } }]);
    const session = (await api.post('/api/sessions', {})).json as { id: string };
    const stream = events();
    expect(await stream.opened).toBe(200);
    await turn(session.id, 'hi', 'lead');
    await ends(stream, 1);
    await stream.until(
      (s) => s.messages.some((message) => message.event === 'state' && (message.data as { state: string }).state === 'idle'),
      'lead idle again',
    );
    const types = stream.legion().map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['message:sent', 'turn:start', 'text:delta', 'usage:report', 'turn:end']));
    expect(types.indexOf('turn:start')).toBeLessThan(types.indexOf('turn:end'));
    const deltas = stream
      .legion()
      .filter((event) => event.type === 'text:delta')
      .map((event) => event.text)
      .join('');
    expect(deltas).toBe('Hello from the model.');
    const states = stream.messages
      .filter((message) => message.event === 'state')
      .map((message) => message.data as { participantId: string; state: string });
    expect(states.filter((state) => state.participantId === 'lead').map((state) => state.state)).toEqual(['thinking', 'idle']);
    // One epoch, consecutive seqs, the data's seq the id's.
    const [epoch] = stream.messages[0]!.id!.split('-');
    const seqs = stream.messages.map((message) => seqOf(message.id));
    expect(stream.messages.every((message) => message.id!.startsWith(`${epoch}-`))).toBe(true);
    expect(seqs).toEqual(seqs.map((_, index) => seqs[0]! + index));
    expect(stream.messages.every((message) => (message.data as { seq: number }).seq === seqOf(message.id))).toBe(true);
    expectWireMessages(stream.messages);
  });

  it('sends the text deltas of one conversation, or none, when asked; the text so far is read through REST', async () => {
    await open([{ text: 'Hello from the model.', usage: { inputTokens: 10, outputTokens: 5 } }]);
    const session = (await api.post('/api/sessions', {})).json as { id: string };
    const every = events();
    const none = events({ deltas: 'none' });
    const mine = events({ deltas: 'user__lead' });
    const other = events({ deltas: 'user__echo' });
    await Promise.all([every, none, mine, other].map((stream) => stream.opened));
    await turn(session.id, 'hi', 'lead');
    await Promise.all([every, none, mine, other].map((stream) => ends(stream, 1)));
    const deltas = (stream: EventStream) =>
      stream
        .legion()
        .filter((event) => event.type === 'text:delta')
        .map((event) => event.text)
        .join('');
    expect(deltas(every)).toBe('Hello from the model.');
    expect(deltas(mine)).toBe('Hello from the model.');
    expect(deltas(none)).toBe('');
    expect(deltas(other)).toBe('');
    // Every other event reaches each: the reply itself among them.
    for (const stream of [none, other])
      expect(
        stream
          .legion()
          .filter((event) => event.type !== 'text:delta')
          .map((event) => event.seq),
      ).toEqual(
        every
          .legion()
          .filter((event) => event.type !== 'text:delta')
          .map((event) => event.seq),
      );
    // The reply is appended: nothing streams there now, as of the stream's position.
    const text = (await api.get(`/api/sessions/${session.id}/conversations/user__lead/stream`)).json as { text: string; seq: number };
    expect(text).toEqual({ text: '', seq: seqOf(every.ids.at(-1)) });
  });

  it('replays exactly what a client missed when it reconnects with Last-Event-ID: no gap, no duplicate', async () => {
    await open();
    const session = ((await api.post('/api/sessions', {})).json as { id: string }).id;
    const witness = events();
    const client = events();
    await Promise.all([witness.opened, client.opened]);
    await turn(session, 'one');
    await ends(client, 1);
    const seen = client.messages.length;
    const lastEventId = client.lastEventId;
    client.close();
    // Missed while away.
    await turn(session, 'two', 'echo');
    await ends(witness, 2);
    await turn(session, 'three', 'echo');
    await ends(witness, 3);
    const back = events({ lastEventId });
    await back.opened;
    await turn(session, 'four', 'echo');
    await ends(witness, 4);
    await back.until(
      (s) => s.legion().filter((event) => event.type === 'turn:end').length >= 3 || undefined,
      'the replayed and the live turn ends',
    );
    await back.until((s) => s.messages.length >= witness.messages.length - seen || undefined, 'every event the witness saw');
    expect(back.messages.map((message) => message.id)).toEqual(witness.messages.slice(seen).map((message) => message.id));
    expect(back.messages.map((message) => message.data)).toEqual(witness.messages.slice(seen).map((message) => message.data));
    expectWireMessages(back.messages);
  });

  it('a client that reconnects at many points while turns run gets every id once, in order, with no gap', async () => {
    await open();
    const session = ((await api.post('/api/sessions', {})).json as { id: string }).id;
    const witness = events();
    await witness.opened;
    await witness.until((s) => s.lastEventId !== undefined, 'the first id');
    const startId = witness.lastEventId!;
    const turns = 12;
    let turnsDone = false;
    const driver = (async () => {
      for (let index = 1; index <= turns; index++) {
        await turn(session, `turn ${index}`);
        await ends(witness, index);
      }
      // The echo's idle state follows the last turn's end: then the journal is still.
      await witness.until(
        (s) =>
          s.messages.filter((message) => message.event === 'state' && (message.data as { state: string }).state === 'idle').length >=
            turns || undefined,
        'the echo idle after every turn',
      );
      turnsDone = true;
    })();
    // As a browser's EventSource: each connection resumes from the last id the previous one carried
    // (an id-only message's too), and is dropped after a varying number of messages, mid-turn or not.
    let position = startId;
    const ids: string[] = [];
    const delivered: StreamMessage[] = [];
    for (let cycle = 0; ; cycle++) {
      const settled = turnsDone;
      const connection = events({ lastEventId: position });
      expect(await connection.opened).toBe(200);
      const wanted = 1 + (cycle % 3);
      await connection.until(
        // Checked at every message and heartbeat: the last connection waits for the witness's last id.
        (s) => (settled ? (s.lastEventId ?? position) === witness.lastEventId : s.messages.length >= wanted || turnsDone) || undefined,
        `message ${wanted} of connection ${cycle}`,
      );
      connection.close();
      ids.push(...connection.ids);
      delivered.push(...connection.messages);
      position = connection.lastEventId ?? position;
      if (settled) break;
    }
    await driver;
    expect(ids.length).toBeGreaterThan(0);
    expect(delivered.every((message) => message.event !== 'reset')).toBe(true);
    // Every id carried at most once, strictly increasing, across all the reconnects.
    const seqs = ids.map((id) => seqOf(id));
    expect(seqs.filter((seq, index) => index > 0 && seq <= seqs[index - 1]!)).toEqual([]);
    // And exactly the journal's events after the start: none missing.
    const expected = witness.messages.filter((message) => seqOf(message.id) > seqOf(startId));
    expect(delivered.map((message) => message.id)).toEqual(expected.map((message) => message.id));
    expect(delivered.map((message) => message.data)).toEqual(expected.map((message) => message.data));
  });

  it('a client whose id is older than the ring, from another server process, or malformed gets a reset, then the live events', async () => {
    await open([], { maxEvents: 5 });
    const session = ((await api.post('/api/sessions', {})).json as { id: string }).id;
    const first = events();
    await first.opened;
    await turn(session, 'one');
    await ends(first, 1);
    const firstId = first.messages[0]!.id!;
    await turn(session, 'two');
    await ends(first, 2);
    const old = events({ lastEventId: firstId });
    await old.opened;
    const reset = (await old.until((s) => s.messages.find((message) => message.event === 'reset'), 'a reset')).data as {
      reason: string;
      seq: number;
    };
    expect(reset.reason).toBe('too_old');
    expect(reset.seq).toBe(seqOf(first.lastEventId));
    // Then it goes on live from there.
    await turn(session, 'three');
    await old.until((s) => s.legion().some((event) => event.type === 'turn:end') || undefined, 'the live turn end');
    expect(old.messages.filter((message) => message.event !== 'reset').every((message) => seqOf(message.id) > reset.seq)).toBe(true);
    const epochless = events({ lastEventId: `0000-${seqOf(first.lastEventId)}` });
    await epochless.opened;
    expect(
      ((await epochless.until((s) => s.messages.find((message) => message.event === 'reset'), 'a reset')).data as { reason: string })
        .reason,
    ).toBe('other_epoch');
    const garbled = events({ lastEventId: 'garbled' });
    await garbled.opened;
    expect(
      ((await garbled.until((s) => s.messages.find((message) => message.event === 'reset'), 'a reset')).data as { reason: string }).reason,
    ).toBe('malformed_id');
    expectWireMessages([...old.messages, ...epochless.messages, ...garbled.messages]);
  });

  it('sends a heartbeat comment, and follows only one session when asked', async () => {
    await open();
    const a = ((await api.post('/api/sessions', {})).json as { id: string }).id;
    const b = ((await api.post('/api/sessions', {})).json as { id: string }).id;
    const onlyA = events({ session: a });
    await onlyA.opened;
    await onlyA.until((s) => s.comments >= 2 || undefined, 'two heartbeats');
    await turn(b, 'in b');
    await turn(a, 'in a');
    await onlyA.until((s) => s.legion().some((event) => event.type === 'turn:end') || undefined, 'the turn end in a');
    expect(onlyA.legion().every((event) => event.sessionId === undefined || event.sessionId === a)).toBe(true);
  });

  it('shows sessions and messages of another Legion on the workspace as they happen, including a session created after the server started', async () => {
    await open();
    const stream = events();
    await stream.opened;
    other = test.reopen();
    const theirs = await other.sessions.create();
    const announced = await stream.until(
      (s) => s.messages.find((message) => message.event === 'session' && (message.data as { sessionId: string }).sessionId === theirs.id),
      'the session event',
    );
    expect(announced.data).toMatchObject({ sessionId: theirs.id, created: true });
    await other.send(theirs, 'from elsewhere', { to: 'echo' });
    await stream.until(
      (s) => s.legion().filter((event) => event.type === 'message:sent' && event.remote === true).length >= 2 || undefined,
      'both remote messages',
    );
    expect(
      stream
        .legion()
        .filter((event) => event.type === 'message:sent' && event.remote === true)
        .map((event) => event.author),
    ).toEqual(['user', 'echo']);
    expect(
      stream
        .legion()
        .filter((event) => event.remote === true)
        .every((event) => event.sessionId === theirs.id),
    ).toBe(true);
    // The echo's state went thinking → idle from the followed messages alone.
    await stream.until(
      (s) =>
        s.messages.some(
          (message) =>
            message.event === 'state' &&
            (message.data as { participantId: string; state: string }).participantId === 'echo' &&
            (message.data as { state: string }).state === 'idle',
        ),
      'echo idle',
    );
    // A session this server creates is announced once, too.
    const mine = ((await api.post('/api/sessions', {})).json as { id: string }).id;
    await stream.until(
      (s) => s.messages.some((message) => message.event === 'session' && (message.data as { sessionId: string }).sessionId === mine),
      'its own session event',
    );
    expect(
      stream.messages.filter((message) => message.event === 'session').map((message) => (message.data as { sessionId: string }).sessionId),
    ).toEqual([theirs.id, mine]);
    expectWireMessages(stream.messages);
  });

  it('ends open streams when the server closes', async () => {
    await open();
    const stream = events();
    await stream.opened;
    await server.close();
    // close() returned: a second one is the same.
    await server.close();
    expect(stream.messages.filter((message) => message.event === 'legion')).toEqual([]);
  });

  it('leaves nothing behind when browsers reconnect: 20 connections opened and closed, no listener left, no warning', async () => {
    await open();
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const before = getEventListeners(server.closing, 'abort').length;
      for (let cycle = 0; cycle < 20; cycle++) {
        const stream = api.events();
        expect(await stream.opened).toBe(200);
        // The id-only first message: the server's side of the stream is running.
        await stream.until((s) => s.lastEventId !== undefined, 'the first id');
        stream.close();
      }
      await expect.poll(() => getEventListeners(server.closing, 'abort').length).toBe(before);
      expect(warnings.filter((warning) => warning.includes('MaxListenersExceeded'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
