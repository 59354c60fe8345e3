import { vitest } from './vitest-api.js';
import type { ConversationAddress, Lease, SessionBackend } from '../../storage/backend/session-backend.js';
import { useHarness, type MakeHarness } from './harness.js';

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
