import { vitest } from './vitest-api.js';
import type { ConversationAddress, LogCursor, StorageWarning } from '../../store/index.js';
import { header, messageEntry, textsOf, useHarness, type MakeHarness } from './harness.js';
import { appendUnderLease } from '../append-under-lease.js';

export function conversationsContract(makeHarness: MakeHarness): void {
  const { describe, expect, it } = vitest();
  describe('conversation logs', () => {
    const { harness, open } = useHarness(makeHarness);

    async function conversation(conversationId = 'user__dev'): Promise<ConversationAddress> {
      const session = await open().sessions.create();
      return { sessionId: session.id, conversationId };
    }

    it('writes the header once: a later ensureHeader gets the first one back', async () => {
      const backend = open();
      const address = await conversation('user__dev__review');
      expect(await backend.conversations.header(address)).toBeUndefined();
      const first = header('user__dev__review', '2026-01-01T00:00:00.000Z');
      expect(await backend.conversations.ensureHeader(address, first)).toEqual(first);
      expect(await open().conversations.ensureHeader(address, header('user__dev__review', '2026-02-02T00:00:00.000Z'))).toEqual(first);
      expect(await open().conversations.header(address)).toEqual(first);
    });

    it('returns the newest messages in order, skipping notes', async () => {
      const backend = open();
      const address = await conversation();
      await backend.conversations.ensureHeader(address, header(address.conversationId));
      for (const text of ['one', 'two', 'three', 'four', 'five']) {
        await appendUnderLease(backend, address, messageEntry(text));
        await appendUnderLease(backend, address, { kind: 'note', level: 'info', text: `after ${text}`, at: new Date().toISOString() });
      }
      expect(textsOf(await backend.conversations.recent(address, 3))).toEqual(['three', 'four', 'five']);
      expect(textsOf(await open().conversations.recent(address, 100))).toEqual(['one', 'two', 'three', 'four', 'five']);
      expect(await backend.conversations.recent(address, 0)).toEqual([]);
    });

    it('keeps every field of a message', async () => {
      const backend = open();
      const address = await conversation();
      const entry = messageEntry('with a tool call', 'assistant');
      const full = {
        ...entry,
        content: [
          ...entry.content,
          { type: 'tool_use' as const, id: 'toolu_1', name: 'file_read', input: { path: 'a.txt', lines: [1, 2] } },
        ],
        usage: { inputTokens: 10, outputTokens: 3, cacheReadTokens: 2 },
        model: 'scripted/test',
      };
      await appendUnderLease(backend, address, full);
      const { kind: _kind, ...message } = full;
      expect(await open().conversations.recent(address, 1)).toEqual([message]);
    });

    it('gives the context since the last compaction point, with its summary', async () => {
      const backend = open();
      const address = await conversation();
      await appendUnderLease(backend, address, messageEntry('before'));
      let context = await backend.conversations.context(address);
      expect(context.compaction).toBeUndefined();
      expect(textsOf(context.messages)).toEqual(['before']);
      await appendUnderLease(backend, address, { kind: 'compaction', at: new Date().toISOString(), summary: 'they said before' });
      await appendUnderLease(backend, address, messageEntry('after 1'));
      await appendUnderLease(backend, address, { kind: 'note', level: 'error', code: 'x', text: 'a note', at: new Date().toISOString() });
      await appendUnderLease(backend, address, messageEntry('after 2'));
      context = await open().conversations.context(address);
      expect(context.compaction?.summary).toBe('they said before');
      expect(textsOf(context.messages)).toEqual(['after 1', 'after 2']);
      await appendUnderLease(backend, address, { kind: 'compaction', at: new Date().toISOString(), summary: 'second summary' });
      context = await backend.conversations.context(address);
      expect(context.compaction?.summary).toBe('second summary');
      expect(context.messages).toEqual([]);
      // Everything stays in the log: the newest messages still reach back past the compaction points.
      expect(textsOf(await backend.conversations.recent(address, 10))).toEqual(['before', 'after 1', 'after 2']);
    });

    it('keeps in the context the messages a version 2 compaction kept from before it, across an earlier compaction point', async () => {
      const backend = open();
      const address = await conversation();
      for (const text of ['one', 'two']) await appendUnderLease(backend, address, messageEntry(text));
      await appendUnderLease(backend, address, { kind: 'compaction', at: new Date().toISOString(), summary: 'first', keptMessages: 1 });
      for (const text of ['three', 'four', 'five']) await appendUnderLease(backend, address, messageEntry(text));
      let context = await open().conversations.context(address);
      expect(context.compaction).toMatchObject({ summary: 'first', keptMessages: 1, carried: [] });
      expect(textsOf(context.messages)).toEqual(['two', 'three', 'four', 'five']);
      // The second point keeps 'two' and 'three' of before the first one: the first point is passed over.
      await appendUnderLease(backend, address, { kind: 'note', level: 'info', text: 'a note', at: new Date().toISOString() });
      await appendUnderLease(backend, address, {
        kind: 'compaction',
        at: new Date().toISOString(),
        summary: 'second',
        keptMessages: 4,
        reason: 'manual',
      });
      await appendUnderLease(backend, address, messageEntry('six'));
      context = await open().conversations.context(address);
      expect(context.compaction).toMatchObject({ summary: 'second', reason: 'manual' });
      expect(textsOf(context.messages)).toEqual(['two', 'three', 'four', 'five', 'six']);
      expect(textsOf(await open().conversations.recent(address, 10))).toEqual(['one', 'two', 'three', 'four', 'five', 'six']);
    });

    it('gives an empty context for a conversation that has no log yet', async () => {
      const address = await conversation();
      const context = await open().conversations.context(address);
      expect(context.compaction).toBeUndefined();
      expect(context.messages).toEqual([]);
      expect((await open().conversations.readSince(address, context.cursor)).messages).toEqual([]);
    });

    it('follows appends made by another instance from a cursor', async () => {
      const reader = open();
      const writer = open();
      const address = await conversation();
      await writer.conversations.ensureHeader(address, header(address.conversationId));
      await appendUnderLease(writer, address, messageEntry('seen'));
      const { cursor } = await reader.conversations.context(address);
      expect((await reader.conversations.readSince(address, cursor)).messages).toEqual([]);
      await appendUnderLease(writer, address, messageEntry('new 1'));
      await appendUnderLease(writer, address, { kind: 'note', level: 'info', text: 'not a message', at: new Date().toISOString() });
      await appendUnderLease(writer, address, messageEntry('new 2'));
      const first = await reader.conversations.readSince(address, cursor);
      expect(textsOf(first.messages)).toEqual(['new 1', 'new 2']);
      expect((await reader.conversations.readSince(address, first.cursor)).messages).toEqual([]);
      await appendUnderLease(writer, address, messageEntry('new 3'));
      expect(textsOf((await reader.conversations.readSince(address, first.cursor)).messages)).toEqual(['new 3']);
      // The old cursor still means the same place.
      expect(textsOf((await reader.conversations.readSince(address, cursor)).messages)).toEqual(['new 1', 'new 2', 'new 3']);
    });

    it('starts a follower at the end, and an append returns the cursor just past itself', async () => {
      const follower = open();
      const writer = open();
      const address = await conversation();
      const taken = await writer.conversations.acquire(address, 'writer', { ttlMs: 3_600_000 });
      if (!taken.acquired) throw new Error('the writer got no lease');
      await writer.conversations.append(address, messageEntry('old'), taken.lease);
      const start = await follower.conversations.end(address);
      const own = await writer.conversations.append(address, messageEntry('mine'), taken.lease);
      expect(textsOf((await follower.conversations.readSince(address, start)).messages)).toEqual(['mine']);
      expect((await writer.conversations.readSince(address, own)).messages).toEqual([]);
      await taken.lease.release();
      await appendUnderLease(open(), address, messageEntry('theirs'));
      expect(textsOf((await writer.conversations.readSince(address, own)).messages)).toEqual(['theirs']);
    });

    it('reads from the start without a cursor, a log that does not exist yet included', async () => {
      const reader = open();
      const writer = open();
      const address = await conversation();
      const empty = await reader.conversations.readSince(address, undefined);
      expect(empty.messages).toEqual([]);
      await writer.conversations.ensureHeader(address, header(address.conversationId));
      await appendUnderLease(writer, address, messageEntry('first'));
      await appendUnderLease(writer, address, messageEntry('second'));
      expect(textsOf((await reader.conversations.readSince(address, undefined)).messages)).toEqual(['first', 'second']);
      expect(textsOf((await reader.conversations.readSince(address, empty.cursor)).messages)).toEqual(['first', 'second']);
    });

    it('wakes a watcher of the session when another instance appends (if it offers watch)', async () => {
      const watcher = open();
      if (!watcher.watch) return;
      const address = await conversation();
      let stop: (() => void) | undefined;
      const woken = new Promise<void>((resolve) => {
        stop = watcher.watch!(address.sessionId, resolve);
      });
      await appendUnderLease(open(), address, messageEntry('wake up'));
      await woken;
      stop!();
    });

    it('flushes a log, written or not, and keeps what it holds', async () => {
      const backend = open();
      const address = await conversation();
      await backend.conversations.flush(address);
      await appendUnderLease(backend, address, messageEntry('kept'));
      await backend.conversations.flush(address);
      expect(textsOf(await open().conversations.recent(address, 1))).toEqual(['kept']);
    });

    it('refuses a cursor it did not make', async () => {
      const address = await conversation();
      await expect(open().conversations.readSince(address, 'nonsense' as LogCursor)).rejects.toMatchObject({ code: 'invalid_cursor' });
    });

    it("lists a session's conversations, sorted, and no other session's", async () => {
      const backend = open();
      const session = await backend.sessions.create();
      const other = await backend.sessions.create();
      expect(await backend.conversations.list(session.id)).toEqual([]);
      for (const conversationId of ['user__dev', 'dev__qa', 'user__dev__review']) {
        await appendUnderLease(backend, { sessionId: session.id, conversationId }, messageEntry('hi'));
      }
      await appendUnderLease(backend, { sessionId: other.id, conversationId: 'user__ops' }, messageEntry('hi'));
      expect(await open().conversations.list(session.id)).toEqual(['dev__qa', 'user__dev', 'user__dev__review']);
      expect(await backend.conversations.list(other.id)).toEqual(['user__ops']);
    });

    it('refuses conversation ids and session ids that cannot name a log', async () => {
      const backend = open();
      const session = await backend.sessions.create();
      for (const conversationId of ['../../escape', 'justone', 'a__b__c__d', 'a/b__c']) {
        await expect(appendUnderLease(backend, { sessionId: session.id, conversationId }, messageEntry('x'))).rejects.toMatchObject({
          code: 'invalid_id',
        });
      }
      await expect(backend.conversations.recent({ sessionId: '../x', conversationId: 'a__b' }, 1)).rejects.toMatchObject({
        code: 'invalid_session_id',
      });
    });

    it('skips a broken entry with a warning and reads the rest', async () => {
      const warnings: StorageWarning[] = [];
      const backend = open({ onWarning: (warning) => warnings.push(warning) });
      const address = await conversation();
      await backend.conversations.ensureHeader(address, header(address.conversationId));
      await appendUnderLease(backend, address, messageEntry('before'));
      await harness().breakConversation(address);
      await appendUnderLease(backend, address, messageEntry('after'));
      expect(textsOf(await backend.conversations.recent(address, 10))).toEqual(['before', 'after']);
      expect(textsOf((await backend.conversations.context(address)).messages)).toEqual(['before', 'after']);
      expect(warnings.length).toBeGreaterThan(0);
      expect(warnings[0]?.source).toContain(address.conversationId);
    });
  });
}
