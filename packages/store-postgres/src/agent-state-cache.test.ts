import { z } from 'zod';
import { PostgresSessionBackend } from './PostgresSessionBackend.js';
import { createTestDatabase, postgresSkipped, sql } from './test-support/test-database.js';

const skipped = postgresSkipped();
const TodosSchema = z.object({ items: z.array(z.string()) });

// Agent state is cached per instance (it is read at every step): these show that another
// process's write is never hidden by it. The second backend instance has its own connections,
// as another Legion process would.
describe.skipIf(skipped !== undefined)('agent state cache', () => {
  async function twoProcesses() {
    const url = await createTestDatabase('agent_state');
    const first = new PostgresSessionBackend({ url, maxConnections: 2 });
    const second = new PostgresSessionBackend({ url, maxConnections: 2 });
    const { id: sessionId } = await first.sessions.create({ title: 'cache' });
    const key = { sessionId, kind: 'todos', agentId: 'dev' };
    // Written before the first listens, so that no notification of it comes later to drop what it caches.
    await second.agentState.put(key, { items: ['old'] });
    // A turn is running in the first: its lease taken, so its listening connection is up and reads are cached.
    const lease = await first.conversations.acquire({ sessionId, conversationId: 'user__dev' }, 'first', { ttlMs: 60_000 });
    expect(lease.acquired).toBe(true);
    expect(await first.agentState.get(key, TodosSchema)).toEqual({ items: ['old'] });
    return { url, first, second, sessionId, key, close: () => Promise.all([first.close(), second.close()]) };
  }

  it('drops what another process writes, and what it removes with its session, while a turn runs', async () => {
    const { first, second, key, close } = await twoProcesses();
    try {
      await second.agentState.put(key, { items: ['from the second process'] });
      // Seen once the change's notification reaches the first instance's listening connection.
      await vi.waitFor(async () => expect(await first.agentState.get(key, TodosSchema)).toEqual({ items: ['from the second process'] }), {
        timeout: 15_000,
        interval: 20,
      });
      await second.sessions.remove(key.sessionId);
      await vi.waitFor(async () => expect(await first.agentState.get(key, TodosSchema)).toBeUndefined(), { timeout: 15_000, interval: 20 });
    } finally {
      await close();
    }
  });

  it('reads afresh when a turn starts, even when no notification of the change has arrived', async () => {
    const { url, first, sessionId, key, close } = await twoProcesses();
    try {
      // A write whose notification has not come (an operator's SQL sends none), as one still on its way.
      await sql(url, `UPDATE legion.agent_state SET document = '{"items": ["unannounced"]}' WHERE session_id = $1`, [sessionId]);
      const next = await first.conversations.acquire({ sessionId, conversationId: 'lead__dev' }, 'first', { ttlMs: 60_000 });
      expect(next.acquired).toBe(true);
      expect(await first.agentState.get(key, TodosSchema)).toEqual({ items: ['unannounced'] });
    } finally {
      await close();
    }
  });

  it('hands out copies: a caller changing what it read does not change what the next read gives', async () => {
    const { first, key, close } = await twoProcesses();
    try {
      // A schema that passes the document through as it is (zod copies what an object schema parses).
      const read = await first.agentState.get(
        key,
        z.custom<{ items: string[] }>(() => true),
      );
      read?.items.push('changed by the caller');
      expect(await first.agentState.get(key, TodosSchema)).toEqual({ items: ['old'] });
    } finally {
      await close();
    }
  });
});
