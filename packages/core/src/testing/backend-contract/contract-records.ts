import { z } from 'zod';
import { vitest } from './vitest-api.js';
import type { ApprovalDecisionRecord } from '../../store/index.js';
import { approvalRequest, decision, usageRecord, useHarness, type MakeHarness } from './harness.js';

const TodoSchema = z.object({ version: z.literal(1), agentId: z.string(), items: z.array(z.object({ id: z.string(), text: z.string() })) });

export function recordsContract(makeHarness: MakeHarness): void {
  const { describe, expect, it } = vitest();
  describe('approvals', () => {
    const { open } = useHarness(makeHarness);

    it('reads back requests and decisions in the order they were made, from any instance', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      expect(await backend.approvals.read(sessionId)).toEqual([]);
      const first = approvalRequest('apr_1');
      const second = approvalRequest('apr_2');
      await backend.approvals.append(sessionId, first);
      await open().approvals.append(sessionId, second);
      const decided = decision('apr_2', 'user');
      expect(await backend.approvals.claim(sessionId, [decided])).toEqual({ ok: true });
      expect(await open().approvals.read(sessionId)).toEqual([first, second, decided]);
    });

    it('keeps the first decision: a later one is refused with the one that stands', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      await backend.approvals.append(sessionId, approvalRequest('apr_1'));
      const winner = decision('apr_1', 'user', 'rejected');
      expect(await backend.approvals.claim(sessionId, [winner])).toEqual({ ok: true });
      const late = await open().approvals.claim(sessionId, [decision('apr_1', 'lead', 'approved')]);
      expect(late).toEqual({ ok: false, taken: [winner] });
      const decisions = (await backend.approvals.read(sessionId)).filter((record) => record.kind === 'decision');
      expect(decisions).toEqual([winner]);
    });

    it('lets exactly one of many concurrent deciders win, across instances', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      await backend.approvals.append(sessionId, approvalRequest('apr_race'));
      const deciders = Array.from({ length: 8 }, (_, index) => ({
        backend: open(),
        record: decision('apr_race', `surface-${index}`, index % 2 ? 'approved' : 'rejected'),
      }));
      const results = await Promise.all(deciders.map(({ backend: decider, record }) => decider.approvals.claim(sessionId, [record])));
      const winners = results.flatMap((result, index) => (result.ok ? [deciders[index]?.record] : []));
      expect(winners).toHaveLength(1);
      for (const result of results) if (!result.ok) expect(result.taken).toEqual(winners);
      const decisions = (await open().approvals.read(sessionId)).filter((record) => record.kind === 'decision');
      expect(decisions).toEqual(winners);
    });

    it('records several decisions all or none', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      await backend.approvals.append(sessionId, approvalRequest('apr_a'));
      await backend.approvals.append(sessionId, approvalRequest('apr_b'));
      const earlier = decision('apr_b', 'user');
      await backend.approvals.claim(sessionId, [earlier]);
      const both: ApprovalDecisionRecord[] = [decision('apr_a', 'lead'), decision('apr_b', 'lead')];
      expect(await backend.approvals.claim(sessionId, both)).toEqual({ ok: false, taken: [earlier] });
      // apr_a was not decided by the refused call: it can still be.
      const alone = decision('apr_a', 'user');
      expect(await open().approvals.claim(sessionId, [alone])).toEqual({ ok: true });
      const decisions = (await backend.approvals.read(sessionId)).filter((record) => record.kind === 'decision');
      expect(decisions).toEqual([earlier, alone]);
    });
  });

  describe('usage ledger', () => {
    const { open } = useHarness(makeHarness);

    it('reads back records oldest first, per session', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      const { id: otherId } = await backend.sessions.create();
      const records = [usageRecord('dev', 1), usageRecord('qa', 2), usageRecord('dev', 3)];
      for (const record of records) await backend.usage.append(sessionId, record);
      const elsewhere = usageRecord('ops', 9);
      await open().usage.append(otherId, elsewhere);
      expect(await open().usage.read(sessionId)).toEqual(records);
      expect(await backend.usage.read(otherId)).toEqual([elsewhere]);
    });
    // Reading on from a cursor is the generic record log's (contract-record-logs.ts), for usage as for the others.
  });

  describe('agent state', () => {
    const { open } = useHarness(makeHarness);

    it('stores one document per agent and kind, validated when read, replaced whole', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      const key = { sessionId, kind: 'todos', agentId: 'dev' };
      expect(await backend.agentState.get(key, TodoSchema)).toBeUndefined();
      const todos = { version: 1 as const, agentId: 'dev', items: [{ id: '1', text: 'write tests' }] };
      await backend.agentState.put(key, todos);
      expect(await open().agentState.get(key, TodoSchema)).toEqual(todos);
      const replaced = { version: 1 as const, agentId: 'dev', items: [] };
      await open().agentState.put(key, replaced);
      expect(await backend.agentState.get(key, TodoSchema)).toEqual(replaced);
      // Kinds and agents do not see each other.
      expect(await backend.agentState.get({ ...key, kind: 'scratchbook' }, TodoSchema)).toBeUndefined();
      expect(await backend.agentState.get({ ...key, agentId: 'qa' }, TodoSchema)).toBeUndefined();
    });

    it('lists the agents that have state of a kind', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      for (const agentId of ['qa', 'dev', 'lead'])
        await backend.agentState.put({ sessionId, kind: 'todos', agentId }, { version: 1, agentId, items: [] });
      await backend.agentState.put({ sessionId, kind: 'scratchbook', agentId: 'ops' }, { notes: [] });
      expect(await open().agentState.list(sessionId, 'todos')).toEqual(['dev', 'lead', 'qa']);
      expect(await backend.agentState.list(sessionId, 'scratchbook')).toEqual(['ops']);
      expect(await backend.agentState.list(sessionId, 'pins')).toEqual([]);
    });

    it('refuses a document its schema rejects, and names that cannot be keys', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      await backend.agentState.put({ sessionId, kind: 'todos', agentId: 'dev' }, { version: 2, items: 'not a list' });
      await expect(backend.agentState.get({ sessionId, kind: 'todos', agentId: 'dev' }, TodoSchema)).rejects.toMatchObject({
        code: 'config_invalid',
      });
      await expect(backend.agentState.put({ sessionId, kind: 'todos', agentId: '../dev' }, {})).rejects.toMatchObject({
        code: 'invalid_id',
      });
      await expect(backend.agentState.put({ sessionId, kind: 'conversations', agentId: 'dev' }, {})).rejects.toMatchObject({
        code: 'invalid_id',
      });
    });
  });

  describe('artifacts', () => {
    const { open } = useHarness(makeHarness);

    it('stores text and bytes by name, lists them sorted with their sizes, replaces them whole', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      expect(await backend.artifacts.list(sessionId)).toEqual([]);
      expect(await backend.artifacts.get(sessionId, 'missing.txt')).toBeUndefined();
      await backend.artifacts.put(sessionId, 'tool-output-2.txt', 'héllo\n');
      const bytes = new Uint8Array([0, 1, 2, 255]);
      await backend.artifacts.put(sessionId, 'image-1.bin', bytes);
      bytes[0] = 9;
      const other = open();
      expect(await other.artifacts.getText(sessionId, 'tool-output-2.txt')).toBe('héllo\n');
      expect(await other.artifacts.get(sessionId, 'image-1.bin')).toEqual(new Uint8Array([0, 1, 2, 255]));
      expect(await other.artifacts.list(sessionId)).toEqual([
        { name: 'image-1.bin', bytes: 4 },
        { name: 'tool-output-2.txt', bytes: 7 },
      ]);
      await other.artifacts.put(sessionId, 'tool-output-2.txt', 'short');
      expect(await backend.artifacts.getText(sessionId, 'tool-output-2.txt')).toBe('short');
      await expect(backend.artifacts.put(sessionId, '../escape', 'x')).rejects.toMatchObject({ code: 'invalid_artifact_name' });
    });
  });
}
