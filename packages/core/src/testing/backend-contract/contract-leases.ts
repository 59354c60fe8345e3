import { vitest } from './vitest-api.js';
import type { ConversationAddress, Lease, SessionBackend } from '../../store/index.js';
import { LeaseLostError } from '../../store/index.js';
import { header, messageEntry, textsOf, useHarness, type MakeHarness } from './harness.js';

export function leasesContract(makeHarness: MakeHarness): void {
  const { describe, expect, it } = vitest();
  describe('conversation leases', () => {
    const { harness, open } = useHarness(makeHarness);
    /** The clock every backend of a test reads; a test moves it instead of waiting. */
    let clock = 0;
    const opened = (): SessionBackend => open({ now: () => clock });

    async function address(backend: SessionBackend, conversationId = 'user__dev'): Promise<ConversationAddress> {
      clock = Date.parse('2026-06-01T12:00:00.000Z');
      const session = await backend.sessions.create();
      return { sessionId: session.id, conversationId };
    }

    async function take(backend: SessionBackend, where: ConversationAddress, owner: string, ttlMs = 60_000): Promise<Lease> {
      const result = await backend.conversations.acquire(where, owner, { ttlMs });
      if (!result.acquired) throw new Error(`expected to acquire, but ${result.holder?.owner ?? 'someone'} holds it`);
      return result.lease;
    }

    it('is exclusive: a second acquirer, in this instance or another, is told who holds it', async () => {
      const a = opened();
      const b = opened();
      const where = await address(a);
      const lease = await take(a, where, 'turn of dev (a)', 60_000);
      expect(lease.owner).toBe('turn of dev (a)');
      expect(Date.parse(lease.expiresAt)).toBe(clock + 60_000);
      for (const backend of [b, a]) {
        const refused = await backend.conversations.acquire(where, 'turn of dev (b)', { ttlMs: 60_000 });
        expect(refused.acquired).toBe(false);
        if (!refused.acquired) {
          expect(refused.holder?.owner).toBe('turn of dev (a)');
          expect(refused.holder?.expiresAt).toBe(lease.expiresAt);
        }
      }
    });

    it('locks each conversation on its own', async () => {
      const a = opened();
      const where = await address(a);
      await take(a, where, 'a');
      await take(opened(), { ...where, conversationId: 'user__qa' }, 'b');
      await take(opened(), { ...where, conversationId: 'user__dev__other' }, 'c');
    });

    it('is free again once released; a second release changes nothing', async () => {
      const a = opened();
      const b = opened();
      const where = await address(a);
      const lease = await take(a, where, 'a');
      await lease.release();
      const next = await take(b, where, 'b');
      await lease.release();
      expect((await opened().conversations.acquire(where, 'c', { ttlMs: 1000 })).acquired).toBe(false);
      await next.release();
      await take(opened(), where, 'c');
    });

    it('is taken over once it expires, and the old holder learns it lost it', async () => {
      const a = opened();
      const b = opened();
      const where = await address(a);
      const old = await take(a, where, 'a', 1000);
      clock += 999;
      expect((await b.conversations.acquire(where, 'b', { ttlMs: 1000 })).acquired).toBe(false);
      clock += 2;
      const taken = await take(b, where, 'b', 1000);
      await expect(old.renew()).rejects.toMatchObject({ code: 'lease_lost' });
      // The failed renewal left the successor's lease as it was.
      const refused = await opened().conversations.acquire(where, 'c', { ttlMs: 1000 });
      expect(refused).toEqual({ acquired: false, holder: { owner: 'b', expiresAt: taken.expiresAt } });
    });

    it("does not free its successor's lease when an expired holder releases", async () => {
      const a = opened();
      const where = await address(a);
      const old = await take(a, where, 'a', 1000);
      clock += 1001;
      await take(opened(), where, 'b', 1000);
      await old.release();
      const refused = await opened().conversations.acquire(where, 'c', { ttlMs: 1000 });
      expect(refused.acquired).toBe(false);
      if (!refused.acquired) expect(refused.holder?.owner).toBe('b');
    });

    it('lasts while it is renewed', async () => {
      const a = opened();
      const b = opened();
      const where = await address(a);
      const lease = await take(a, where, 'a', 1000);
      for (let step = 0; step < 3; step++) {
        clock += 800;
        await lease.renew();
        expect(Date.parse(lease.expiresAt)).toBe(clock + 1000);
        const refused = await b.conversations.acquire(where, 'b', { ttlMs: 1000 });
        expect(refused.acquired).toBe(false);
        if (!refused.acquired) expect(refused.holder?.expiresAt).toBe(lease.expiresAt);
      }
      clock += 1001;
      await take(b, where, 'b');
    });

    it('fences appends: once its lease is taken over, the old holder writes nothing more, and its successor writes on', async () => {
      const a = opened();
      const b = opened();
      const where = await address(a);
      await a.conversations.ensureHeader(where, header(where.conversationId));
      const old = await take(a, where, 'a', 1000);
      await a.conversations.append(where, messageEntry('asked'), old);
      // Expired but not taken over: nobody else wrote, so the slow holder still may.
      clock += 1001;
      await a.conversations.append(where, messageEntry('asked again'), old);
      const successor = await take(b, where, 'b', 1000);
      await b.conversations.append(where, messageEntry('answered by b', 'assistant'), successor);
      const stale = [
        messageEntry('stale answer by a', 'assistant'),
        { kind: 'note' as const, level: 'error' as const, code: 'stale', text: 'a stale ending', at: new Date(clock).toISOString() },
        { kind: 'compaction' as const, at: new Date(clock).toISOString(), summary: 'a stale summary' },
      ];
      for (const entry of stale) {
        const refused = await a.conversations.append(where, entry, old).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(LeaseLostError);
        expect(refused).toMatchObject({ code: 'lease_lost' });
      }
      await b.conversations.append(where, messageEntry('b goes on', 'assistant'), successor);
      // What every instance reads: nothing of the stale holder after the takeover, nor anything in between.
      const entries = await opened().conversations.entries(where);
      expect(entries.map((entry) => entry.kind)).toEqual(['message', 'message', 'message', 'message']);
      expect(textsOf(await opened().conversations.recent(where, 10))).toEqual(['asked', 'asked again', 'answered by b', 'b goes on']);
      // Released by its successor, the conversation is still no longer the stale holder's.
      await successor.release();
      await expect(a.conversations.append(where, messageEntry('after the release'), old)).rejects.toMatchObject({ code: 'lease_lost' });
      expect(await opened().conversations.entries(where)).toHaveLength(4);
    });

    it('refuses an append under a released lease, or under the lease of another conversation', async () => {
      const a = opened();
      const where = await address(a);
      const other = { ...where, conversationId: 'user__qa' };
      const lease = await take(a, where, 'a');
      const otherLease = await take(a, other, 'a on qa');
      await expect(a.conversations.append(where, messageEntry('under the lease of qa'), otherLease)).rejects.toMatchObject({
        code: 'lease_lost',
      });
      await lease.release();
      await expect(a.conversations.append(where, messageEntry('after release'), lease)).rejects.toMatchObject({ code: 'lease_lost' });
      expect(await opened().conversations.entries(where)).toEqual([]);
      await a.conversations.append(other, messageEntry('its own'), otherLease);
      expect(textsOf(await opened().conversations.recent(other, 10))).toEqual(['its own']);
    });

    it('is taken over at once when its holder died, long before it expires', async () => {
      const a = opened();
      const where = await address(a);
      clock = Date.now();
      await harness().abandonLease(where, 'a holder that crashed');
      await take(a, where, 'survivor');
    });

    it('is given back when its instance closes', async () => {
      const a = opened();
      const where = await address(a);
      await take(a, where, 'a');
      await a.close();
      await take(opened(), where, 'b');
    });
  });
}
