// What an agent turn costs in round trips to the server, counted on the wire (a relay in front of
// the test database): every step of the loop appends twice, and on a busy machine each round trip,
// with the server processes it wakes, is most of a step's time (bench/pg-store.mjs).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Legion, defineTool, initWorkspace } from '@legion-collective/core';
import { ScriptedProvider, agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { PostgresSessionBackend } from './PostgresSessionBackend.js';
import { createTestDatabase, postgresSkipped } from './test-support/test-database.js';
import { recordWire, type WireRecorder } from './test-support/wire-recorder.js';

const TOOL_STEPS = 5;

describe.skipIf(postgresSkipped() !== undefined)('round trips of an agent turn', () => {
  let root: string;
  let wire: WireRecorder;
  let legion: Legion;
  let backend: PostgresSessionBackend;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'legion-pg-round-trips-'));
    initWorkspace(root, {
      participants: [userParticipant('user'), agentParticipant('worker', { tools: ['noop'], delegation: 'none' })],
      entryAgent: 'worker',
    });
    wire = await recordWire(await createTestDatabase('round_trips'));
    backend = new PostgresSessionBackend({ url: wire.url });
    legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json'), backend });
    legion.tools.register(
      defineTool({
        name: 'noop',
        effect: 'read',
        description: 'Does nothing.',
        inputSchema: z.object({ step: z.number().int() }),
        async execute(input) {
          return { status: 'success', data: { ok: input.step } };
        },
      }),
    );
    legion.providers.useFor(
      'worker',
      new ScriptedProvider((request) => {
        const done = (request.messages.length - 1) / 2;
        return done < TOOL_STEPS ? { toolCalls: [{ id: `s${done}`, name: 'noop', input: { step: done } }] } : { text: 'done' };
      }, 'round-trips'),
    );
  });

  afterEach(async () => {
    await legion.close();
    await wire.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** One turn in a conversation of its own; the round trips it took. */
  async function turn(session: Awaited<ReturnType<Legion['sessions']['create']>>, name: string): Promise<number> {
    const before = wire.roundTrips();
    const result = await session.send({ from: 'user', to: 'worker', message: 'go', conversation: name });
    expect(result.status).toBe('success');
    return wire.roundTrips() - before;
  }

  it('costs one round trip per append and at most eight more per turn (the lease, the header, the context, the flush)', async () => {
    const session = await legion.sessions.create({ title: 'round trips' });
    // The first turn also checks the schema and opens the listening connection.
    await turn(session, 'warm');
    const appends = 2 * TOOL_STEPS + 2;
    expect(await turn(session, 'measured')).toBeLessThanOrEqual(appends + 8);
  });

  it("sends a lone turn's appends on the listening connection, so their own notifications come back in their replies; concurrent appends still go side by side", async () => {
    const session = await legion.sessions.create({ title: 'one connection' });
    await turn(session, 'warm');
    const listening = wire.connections.filter((connection) => connection.listens);
    expect(listening).toHaveLength(1);
    const appendsOn = (connection: { binds: string[] }): number =>
      connection.binds.filter((statement) => statement.startsWith('legion-append')).length;
    const before = wire.connections.map(appendsOn);
    await turn(session, 'measured');
    const sent = wire.connections.map((connection, index) => appendsOn(connection) - (before[index] ?? 0));
    expect(sent[wire.connections.indexOf(listening[0]!)]).toBe(2 * TOOL_STEPS + 2);
    expect(sent.reduce((sum, count) => sum + count, 0)).toBe(2 * TOOL_STEPS + 2);

    // Parallel delegates' appends are not queued behind one another on that one connection.
    const entry = (text: string) => ({
      kind: 'message' as const,
      id: text,
      role: 'user' as const,
      content: [{ type: 'text' as const, text }],
      at: new Date().toISOString(),
    });
    // The leases first, so that the four appends themselves start together (a lease taken on the way
    // staggered them under load, and they could all find the one connection free in turn).
    const address = (name: string) => ({ sessionId: session.id, conversationId: `user__worker__${name}` });
    const leases = await Promise.all(
      ['a', 'b', 'c', 'd'].map(async (name) => {
        const taken = await backend.conversations.acquire(address(name), 'the round-trips test', { ttlMs: 3_600_000 });
        if (!taken.acquired) throw new Error(`user__worker__${name} is held by ${taken.holder?.owner ?? 'another holder'}`);
        return taken.lease;
      }),
    );
    const binds = wire.connections.map(appendsOn);
    const cursors = await Promise.all(
      ['a', 'b', 'c', 'd'].map((name, index) => backend.conversations.append(address(name), entry(name), leases[index]!)),
    );
    expect(cursors).toHaveLength(4);
    const carriers = wire.connections.filter((connection, index) => appendsOn(connection) > (binds[index] ?? 0));
    expect(carriers.length).toBeGreaterThan(1);
    for (const name of ['a', 'b', 'c', 'd']) {
      expect(
        (await backend.conversations.recent({ sessionId: session.id, conversationId: `user__worker__${name}` }, 5)).map(
          (message) => message.id,
        ),
      ).toEqual([name]);
    }
  });
});
