import { vitest } from './vitest-api.js';
import type { SessionBackendOptions, StorageWarning } from '../../store/index.js';
import { useHarness, type MakeHarness } from './harness.js';

export function sessionsContract(makeHarness: MakeHarness): void {
  const { describe, expect, it } = vitest();
  describe('sessions', () => {
    const { harness, open } = useHarness(makeHarness);

    it('creates a session with a fresh id and reads it back, from this instance and another', async () => {
      const backend = open();
      const first = await backend.sessions.create({ title: 'first' });
      const second = await backend.sessions.create();
      expect(first.id).not.toBe(second.id);
      expect(first).toMatchObject({ version: 1, title: 'first' });
      expect(first.lastActiveAt).toBe(first.createdAt);
      expect(second.title).toBeUndefined();
      expect(await backend.sessions.get(first.id)).toEqual(first);
      expect(await open().sessions.get(second.id)).toEqual(second);
    });

    it('answers undefined for an unknown session and refuses an id that cannot be one', async () => {
      const backend = open();
      expect(await backend.sessions.get('20990101-000000-abcdef')).toBeUndefined();
      await expect(backend.sessions.get('../outside')).rejects.toMatchObject({ code: 'invalid_session_id' });
    });

    it('updates only the fields given, and refuses an unknown session', async () => {
      const backend = open();
      const session = await backend.sessions.create({ title: 'kept' });
      const later = '2099-01-01T00:00:00.000Z';
      const updated = await backend.sessions.update(session.id, { lastActiveAt: later });
      expect(updated).toEqual({ ...session, lastActiveAt: later });
      const renamed = await open().sessions.update(session.id, { title: 'renamed' });
      expect(renamed).toEqual({ ...session, lastActiveAt: later, title: 'renamed' });
      expect(await backend.sessions.get(session.id)).toEqual(renamed);
      await expect(backend.sessions.update('20990101-000000-abcdef', { title: 'x' })).rejects.toMatchObject({ code: 'session_not_found' });
    });

    it('lists sessions most recently active first, and latest() is the first of them', async () => {
      const backend = open();
      const a = await backend.sessions.create({ title: 'a' });
      const b = await backend.sessions.create({ title: 'b' });
      const c = await backend.sessions.create({ title: 'c' });
      await backend.sessions.update(a.id, { lastActiveAt: '2099-01-03T00:00:00.000Z' });
      await backend.sessions.update(b.id, { lastActiveAt: '2099-01-01T00:00:00.000Z' });
      await backend.sessions.update(c.id, { lastActiveAt: '2099-01-02T00:00:00.000Z' });
      const listing = await open().sessions.list();
      expect(listing.sessions.map((session) => session.title)).toEqual(['a', 'c', 'b']);
      expect(listing.warnings).toEqual([]);
      expect((await open().sessions.latest())?.id).toBe(a.id);
      await backend.sessions.update(b.id, { lastActiveAt: '2099-01-04T00:00:00.000Z' });
      expect((await backend.sessions.latest())?.id).toBe(b.id);
      expect((await open().sessions.latest())?.id).toBe(b.id);
    });

    it('removes a session with everything it stores, for every instance; a second remove finds nothing', async () => {
      const backend = open();
      const kept = await backend.sessions.create({ title: 'kept' });
      const gone = await backend.sessions.create({ title: 'gone' });
      const where = { sessionId: gone.id, conversationId: 'user__dev' };
      await backend.conversations.ensureHeader(where, {
        kind: 'header',
        version: 1,
        conversationId: 'user__dev',
        initiator: 'user',
        responder: 'dev',
        createdAt: gone.createdAt,
      });
      await backend.usage.append(gone.id, {
        version: 1,
        at: gone.createdAt,
        participantId: 'dev',
        conversationId: 'user__dev',
        chain: ['user'],
        provider: 'p',
        model: 'm',
        usage: { inputTokens: 1, outputTokens: 1 },
        costUsd: 0,
      });
      await backend.artifacts.put(gone.id, 'out.txt', 'text');
      expect(await open().sessions.remove(gone.id)).toBe(true);
      expect(await backend.sessions.get(gone.id)).toBeUndefined();
      expect((await backend.sessions.list()).sessions.map((session) => session.id)).toEqual([kept.id]);
      expect((await backend.sessions.latest())?.id).toBe(kept.id);
      expect(await backend.conversations.list(gone.id)).toEqual([]);
      expect(await backend.usage.read(gone.id)).toEqual([]);
      expect(await backend.artifacts.list(gone.id)).toEqual([]);
      expect(await backend.sessions.get(kept.id)).toMatchObject({ title: 'kept' });
      expect(await backend.sessions.remove(gone.id)).toBe(false);
      await expect(backend.sessions.remove('../outside')).rejects.toMatchObject({ code: 'invalid_session_id' });
    });

    it('starts a new first session, under a new id, once the only session was removed', async () => {
      const { session: first } = await open().sessions.latestOrCreate();
      expect(await open().sessions.remove(first.id)).toBe(true);
      const { session: next, created } = await open().sessions.latestOrCreate();
      expect(created).toBe(true);
      expect(next.id).not.toBe(first.id);
      expect((await open().sessions.list()).sessions.map((session) => session.id)).toEqual([next.id]);
    });

    it('has no latest session while the store is empty', async () => {
      expect(await open().sessions.latest()).toBeUndefined();
      expect((await open().sessions.list()).sessions).toEqual([]);
    });

    it('gives callers racing on an empty store one first session', async () => {
      const backends = Array.from({ length: 6 }, () => open());
      const results = await Promise.all(backends.map((backend) => backend.sessions.latestOrCreate()));
      const ids = new Set(results.map((result) => result.session.id));
      expect(ids.size).toBe(1);
      expect(results.filter((result) => result.created)).toHaveLength(1);
      expect((await open().sessions.list()).sessions).toHaveLength(1);
      const again = await open().sessions.latestOrCreate();
      expect(again).toEqual({ session: results[0]?.session, created: false });
    });

    it('takes the latest session when there is one instead of creating another', async () => {
      const backend = open();
      const existing = await backend.sessions.create();
      const result = await open().sessions.latestOrCreate();
      expect(result.created).toBe(false);
      expect(result.session.id).toBe(existing.id);
    });

    it('reports a broken session as a warning and lists the others', async () => {
      const warnings: StorageWarning[] = [];
      const options: SessionBackendOptions = { onWarning: (warning) => warnings.push(warning) };
      const backend = open(options);
      const good = await backend.sessions.create({ title: 'good' });
      const broken = await backend.sessions.create({ title: 'broken' });
      await harness().breakSession(broken.id);
      const listing = await backend.sessions.list();
      expect(listing.sessions.map((session) => session.id)).toEqual([good.id]);
      expect(listing.warnings).toHaveLength(1);
      expect(listing.warnings[0]?.source).toContain(broken.id);
      expect((await backend.sessions.latest())?.id).toBe(good.id);
      await expect(backend.sessions.get(broken.id)).rejects.toMatchObject({ code: 'config_invalid' });
    });
  });
}
