import { vitest } from './vitest-api.js';
import { MemorySessionBackend, canonicalJson, exportSession, importSession, summarizeSnapshot } from '../../store/index.js';
import { fillSession } from '../session-fill.js';
import { header, messageEntry, useHarness, type MakeHarness } from './harness.js';
import { appendUnderLease } from '../append-under-lease.js';

export function copyContract(makeHarness: MakeHarness): void {
  const { describe, expect, it } = vitest();
  describe('copying sessions', () => {
    const { open } = useHarness(makeHarness);

    it('restores a session under its own id with its metadata, once', async () => {
      const backend = open();
      const meta = {
        version: 1,
        id: '20260102-030405-abcdef',
        createdAt: '2026-01-02T03:04:05.006Z',
        lastActiveAt: '2026-01-03T00:00:00.000Z',
        title: 'moved',
      };
      expect(await backend.sessions.restore(meta)).toBe(true);
      expect(await open().sessions.get(meta.id)).toEqual(meta);
      expect(await backend.sessions.restore({ ...meta, title: 'another' })).toBe(false);
      expect(await backend.sessions.get(meta.id)).toEqual(meta);
    });

    it('reads back every entry of a log in order, notes and compaction points included', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      const address = { sessionId, conversationId: 'user__dev' };
      await backend.conversations.ensureHeader(address, header('user__dev'));
      const first = messageEntry('one');
      const note = { kind: 'note' as const, level: 'info' as const, text: 'a note', at: '2026-01-01T00:00:00.000Z' };
      const compaction = { kind: 'compaction' as const, at: '2026-01-01T00:00:01.000Z', summary: 'sum', keptMessages: 0, carried: [] };
      const second = messageEntry('two', 'assistant');
      for (const entry of [first, note, compaction, second]) await appendUnderLease(backend, address, entry);
      expect(await open().conversations.entries(address)).toEqual([first, note, compaction, second]);
      expect(await backend.conversations.entries({ sessionId, conversationId: 'user__nobody' })).toEqual([]);
    });

    it('lists the agent state kinds a session holds', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      expect(await backend.agentState.kinds(sessionId)).toEqual([]);
      await backend.agentState.put({ sessionId, kind: 'todos', agentId: 'dev' }, { items: [] });
      await backend.agentState.put({ sessionId, kind: 'scratchbook', agentId: 'dev' }, { notes: [] });
      await backend.artifacts.put(sessionId, 'a.txt', 'not state');
      expect(await open().agentState.kinds(sessionId)).toEqual(['scratchbook', 'todos']);
    });

    it('copies a session from memory to this store and back without changing anything', async () => {
      const source = new MemorySessionBackend();
      const meta = await fillSession(source, { title: 'round trip' });
      const original = await exportSession(source, meta.id);
      if (!original) throw new Error('the filled session is missing');
      await importSession(open(), original);
      const stored = await exportSession(open(), meta.id);
      if (!stored) throw new Error('the copied session is missing');
      expect(canonicalJson(stored)).toBe(canonicalJson(original));
      const back = new MemorySessionBackend();
      await importSession(back, stored);
      const returned = await exportSession(back, meta.id);
      expect(returned && canonicalJson(returned)).toBe(canonicalJson(original));
      expect(summarizeSnapshot(stored)).toEqual(summarizeSnapshot(original));
      expect(summarizeSnapshot(original)).toMatchObject({
        conversations: 2,
        entries: 7,
        approvals: 3,
        questions: 3,
        usage: 2,
        conflicts: 1,
        agentState: 2,
        artifacts: 2,
      });
      // What the copy restored is a working session: its context starts at the compaction point.
      const context = await open().conversations.context({ sessionId: meta.id, conversationId: 'user__dev' });
      expect(context.compaction?.summary).toMatch(/^summary of /);
      expect(context.messages).toHaveLength(2);
    });

    it('refuses to import over a session that exists, leaving it as it was', async () => {
      const backend = open();
      const meta = await fillSession(backend);
      const before = await exportSession(backend, meta.id);
      if (!before) throw new Error('the filled session is missing');
      const other = new MemorySessionBackend();
      await fillSession(other, { id: meta.id });
      const snapshot = await exportSession(other, meta.id);
      if (!snapshot) throw new Error('the filled session is missing');
      await expect(importSession(backend, snapshot)).rejects.toMatchObject({ code: 'session_exists' });
      const after = await exportSession(open(), meta.id);
      expect(after && canonicalJson(after)).toBe(canonicalJson(before));
    });
  });
}
