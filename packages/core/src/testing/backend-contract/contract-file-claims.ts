import { vitest } from './vitest-api.js';
import { fileClaim, useHarness, type MakeHarness } from './harness.js';

export function fileClaimsContract(makeHarness: MakeHarness): void {
  const { describe, expect, it } = vitest();
  describe('file claims', () => {
    const { harness, open } = useHarness(makeHarness);

    it('gives a path to one conversation: another, in this instance or another, is refused with the holder', async () => {
      const a = open();
      const b = open();
      const mine = fileClaim('src/app.ts', 'lead__alpha');
      expect(await a.fileClaims.take(mine)).toEqual({ taken: true });
      for (const backend of [b, a])
        expect(await backend.fileClaims.take(fileClaim('src/app.ts', 'lead__beta'))).toEqual({ taken: false, holder: mine });
      // The holder's own conversation takes it again, from any instance, and it stays as it was.
      expect(await b.fileClaims.take(fileClaim('src/app.ts', 'lead__alpha'))).toEqual({ taken: true });
      expect(await b.fileClaims.get('src/app.ts')).toEqual(mine);
      expect(await b.fileClaims.take(fileClaim('src/other.ts', 'lead__beta'))).toEqual({ taken: true });
      expect((await open().fileClaims.list()).map((claim) => [claim.path, claim.conversationId])).toEqual([
        ['src/app.ts', 'lead__alpha'],
        ['src/other.ts', 'lead__beta'],
      ]);
    });

    it('frees what a conversation claimed when its turn gives it back, and only that', async () => {
      const a = open();
      await a.fileClaims.take(fileClaim('one.md', 'lead__alpha'));
      await a.fileClaims.take(fileClaim('two.md', 'lead__alpha'));
      await a.fileClaims.take(fileClaim('three.md', 'lead__beta'));
      await a.fileClaims.releaseConversation('session-1', 'lead__alpha');
      expect((await open().fileClaims.list()).map((claim) => claim.path)).toEqual(['three.md']);
      expect(await open().fileClaims.take(fileClaim('one.md', 'lead__gamma'))).toEqual({ taken: true });
    });

    it("lets a person release a live holder's claim from another instance; an unknown path is false", async () => {
      const a = open();
      await a.fileClaims.take(fileClaim('held.md', 'lead__alpha'));
      const human = open();
      expect(await human.fileClaims.release('held.md')).toBe(true);
      expect(await human.fileClaims.release('held.md')).toBe(false);
      expect(await human.fileClaims.release('never-claimed.md')).toBe(false);
      expect(await open().fileClaims.take(fileClaim('held.md', 'lead__beta'))).toEqual({ taken: true });
      // The first holder's turn ending leaves its successor's claim alone.
      await a.fileClaims.releaseConversation('session-1', 'lead__alpha');
      expect((await human.fileClaims.get('held.md'))?.conversationId).toBe('lead__beta');
    });

    it("does not count a dead holder's claim: not listed, and taken over by the next writer", async () => {
      await harness().abandonFileClaim(fileClaim('crashed.md', 'lead__alpha'));
      const b = open();
      expect(await b.fileClaims.get('crashed.md')).toBeUndefined();
      expect(await b.fileClaims.list()).toEqual([]);
      const next = fileClaim('crashed.md', 'lead__beta');
      expect(await b.fileClaims.take(next)).toEqual({ taken: true });
      expect(await open().fileClaims.get('crashed.md')).toEqual(next);
    });

    it('gives back what an instance holds when it closes', async () => {
      const a = harness().open();
      await a.fileClaims.take(fileClaim('closing.md', 'lead__alpha'));
      await a.close();
      expect(await open().fileClaims.list()).toEqual([]);
    });
  });
}
