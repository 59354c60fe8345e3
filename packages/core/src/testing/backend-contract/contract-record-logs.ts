import { vitest } from './vitest-api.js';
import type { RecordLog, RecordLogName, SessionBackend, StorageWarning } from '../../store/index.js';
import { answer, approvalRequest, claimConflict, decision, question, usageRecord, useHarness, type MakeHarness } from './harness.js';

/** One record log of the port, as the generic tests drive it. */
interface LogCase {
  name: RecordLogName;
  /** What a warning calls one of its records. */
  what: string;
  of(backend: SessionBackend): RecordLog<unknown, unknown>;
  /** A record `append` takes, with a key of its own. */
  appended(key: string): unknown;
  /** A claim that settles what `appended(key)` awaits; none for a log without claims. */
  claimOf?: ((key: string, by: string) => unknown) | undefined;
}

const LOGS: LogCase[] = [
  {
    name: 'approvals',
    what: 'approval record',
    of: (backend) => backend.approvals,
    appended: (key) => approvalRequest(key),
    claimOf: (key, by) => decision(key, by),
  },
  {
    name: 'questions',
    what: 'question record',
    of: (backend) => backend.questions,
    appended: (key) => question(key),
    claimOf: (key, by) => answer(key, `answered by ${by}`),
  },
  {
    name: 'usage',
    what: 'usage record',
    of: (backend) => backend.usage,
    appended: (key) => usageRecord(key, key.length),
  },
  {
    name: 'conflicts',
    what: 'claim conflict record',
    of: (backend) => backend.conflicts,
    appended: (key) => claimConflict(key),
  },
];

/** A version 1 approval request, as Legion wrote it before requests had frames. */
function requestV1(id: string, chain: string[], conversationId: string): Record<string, unknown> {
  return {
    kind: 'request',
    version: 1,
    id,
    at: '2026-01-01T00:00:00.000Z',
    batchId: 'batch-old',
    requester: 'developer',
    approver: 'user',
    tool: 'file_write',
    input: { path: 'a.txt' },
    toolUseId: 'd1',
    conversationId,
    reason: 'writes need approval',
    chain,
  };
}

/** A version 1 link record: a communicate call of `parent` waits on `child`. */
function linkV1(parent: string, toolUseId: string, child: string): Record<string, unknown> {
  return { kind: 'link', version: 1, at: '2026-01-01T00:00:00.000Z', parentConversationId: parent, toolUseId, childConversationId: child };
}

/**
 * Approvals, questions, usage and conflicts are one generic record log (`RecordLog`): these tests hold for
 * every one of them, on every backend.
 */
export function recordLogsContract(makeHarness: MakeHarness): void {
  const { describe, expect, it } = vitest();
  describe('record logs', () => {
    const { harness, open } = useHarness(makeHarness);

    for (const log of LOGS) {
      it(`${log.name}: reads on from a cursor only what was written since, by this instance or another`, async () => {
        const one = open();
        const two = open();
        const { id: sessionId } = await one.sessions.create();
        const start = await log.of(one).readSince(sessionId);
        expect(start.records).toEqual([]);
        const first = [log.appended('k1'), log.appended('k2')];
        for (const record of first) await log.of(one).append(sessionId, record);
        const afterFirst = await log.of(two).readSince(sessionId, start.cursor);
        expect(afterFirst.records).toEqual(first);
        const later = [log.appended('k3')];
        await log.of(two).append(sessionId, later[0]);
        if (log.claimOf) {
          const claim = log.claimOf('k1', 'two');
          expect(await log.of(two).claim(sessionId, [claim])).toEqual({ ok: true });
          later.push(claim);
        }
        // A cursor one instance made reads on in another.
        const next = await log.of(one).readSince(sessionId, afterFirst.cursor);
        expect(next.records).toEqual(later);
        expect((await log.of(two).readSince(sessionId, next.cursor)).records).toEqual([]);
        expect((await log.of(two).readSince(sessionId)).records).toEqual([...first, ...later]);
        expect(await log.of(open()).read(sessionId)).toEqual([...first, ...later]);
      });

      it(`${log.name}: skips a record it cannot read, with a warning naming the session's log, and reads on past it`, async () => {
        const warnings: StorageWarning[] = [];
        const backend = open({ onWarning: (warning) => warnings.push(warning) });
        const { id: sessionId } = await backend.sessions.create();
        const before = log.appended('k1');
        await log.of(backend).append(sessionId, before);
        await harness().storeRecord(sessionId, log.name, { kind: 'unheard-of', version: 99 });
        const after = log.appended('k2');
        await log.of(backend).append(sessionId, after);
        expect(await log.of(backend).read(sessionId)).toEqual([before, after]);
        expect((await log.of(backend).readSince(sessionId)).records).toEqual([before, after]);
        expect(warnings.length).toBeGreaterThan(0);
        for (const warning of warnings) {
          expect(warning.problem).toContain(`skipped an unreadable ${log.what}`);
          expect(warning.source).toContain(sessionId);
          expect(warning.source).toContain(log.name);
        }
      });

      const claimOf = log.claimOf;
      if (!claimOf) continue;

      it(`${log.name}: of two instances claiming a key at once, one wins all its keys and the other writes none`, async () => {
        const { id: sessionId } = await open().sessions.create();
        for (const key of ['k1', 'k2', 'k3']) await log.of(open()).append(sessionId, log.appended(key));
        const mine = [claimOf('k1', 'one'), claimOf('k2', 'one')];
        const theirs = [claimOf('k3', 'two'), claimOf('k2', 'two')];
        const [first, second] = await Promise.all([log.of(open()).claim(sessionId, mine), log.of(open()).claim(sessionId, theirs)]);
        expect([first.ok, second.ok].filter(Boolean)).toHaveLength(1);
        const [won, lost, loserOther] = first.ok ? [mine, second, theirs[0]] : [theirs, first, mine[0]];
        // The loser is told what took the key they share.
        expect(lost).toEqual({ ok: false, taken: [won[1]] });
        // All or none: the loser's other key was not kept, so it can still be claimed.
        expect(await log.of(open()).claim(sessionId, [loserOther])).toEqual({ ok: true });
        expect((await log.of(open()).read(sessionId)).slice(3)).toEqual([...won, loserOther]);
      });
    }

    it('approvals: reads version 1 requests an older Legion stored, migrated with the links before them, and claims them', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      await harness().storeRecord(sessionId, 'approvals', linkV1('user__lead', 'l1', 'lead__coordinator'));
      await harness().storeRecord(sessionId, 'approvals', linkV1('lead__coordinator', 'c1', 'coordinator__developer'));
      const {
        chain: _chain,
        version: _version,
        ...fields
      } = requestV1('apr_old', ['user', 'lead', 'coordinator'], 'coordinator__developer');
      await harness().storeRecord(sessionId, 'approvals', requestV1('apr_old', ['user', 'lead', 'coordinator'], 'coordinator__developer'));
      const migrated = {
        ...fields,
        version: 2,
        frames: [
          { participantId: 'user', conversationId: 'user__lead' },
          { participantId: 'lead', conversationId: 'user__lead', toolUseId: 'l1' },
          { participantId: 'coordinator', conversationId: 'lead__coordinator', toolUseId: 'c1' },
        ],
      };
      expect(await backend.approvals.read(sessionId)).toEqual([migrated]);
      expect((await open().approvals.readSince(sessionId)).records).toEqual([migrated]);
      const decided = decision('apr_old', 'user');
      expect(await open().approvals.claim(sessionId, [decided])).toEqual({ ok: true });
      expect(await backend.approvals.claim(sessionId, [decision('apr_old', 'lead')])).toEqual({ ok: false, taken: [decided] });
      expect(await backend.approvals.read(sessionId)).toEqual([migrated, decided]);
    });

    it('conflicts: wakes a watcher of the session when another instance records one (if it offers watch)', async () => {
      const watcher = open();
      if (!watcher.watch) return;
      const { id: sessionId } = await watcher.sessions.create();
      let stop: (() => void) | undefined;
      const woken = new Promise<void>((resolve) => {
        stop = watcher.watch!(sessionId, resolve);
      });
      await open().conflicts.append(sessionId, claimConflict('cc_woken'));
      await woken;
      stop?.();
      expect((await watcher.conflicts.read(sessionId)).map((record) => record.id)).toEqual(['cc_woken']);
    });
  });
}
