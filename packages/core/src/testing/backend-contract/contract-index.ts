import { vitest } from './vitest-api.js';
import type { ConversationAddress, SessionBackend } from '../../store/index.js';
import { searchWords } from '../../store/index.js';
import { header, messageEntry, textsOf, usageRecord, useHarness, type MakeHarness } from './harness.js';
import { appendUnderLease } from '../append-under-lease.js';

export function indexContract(makeHarness: MakeHarness): void {
  const { describe, expect, it } = vitest();
  describe('session index', () => {
    const { open } = useHarness(makeHarness);

    async function started(backend: SessionBackend, conversationId: string, sessionId?: string): Promise<ConversationAddress> {
      const id = sessionId ?? (await backend.sessions.create()).id;
      const address = { sessionId: id, conversationId };
      await backend.conversations.ensureHeader(address, header(conversationId));
      return address;
    }

    it('counts each conversation’s messages (not its notes or compaction points) and sums usage, for every instance', async () => {
      const backend = open();
      const first = await started(backend, 'user__dev');
      const second = await started(backend, 'dev__qa', first.sessionId);
      let last = messageEntry('one');
      for (const text of ['one', 'two', 'three']) {
        last = messageEntry(text);
        await appendUnderLease(backend, first, last);
        await appendUnderLease(backend, first, { kind: 'note', level: 'info', text: `after ${text}`, at: new Date().toISOString() });
      }
      await appendUnderLease(backend, first, { kind: 'compaction', at: new Date().toISOString(), summary: 'they counted' });
      await appendUnderLease(backend, second, messageEntry('hello qa'));
      await backend.usage.append(first.sessionId, usageRecord('dev', 10));
      await backend.usage.append(first.sessionId, { ...usageRecord('qa', 5), costUsd: 0.25 });
      const expected = {
        conversations: [
          { conversationId: 'dev__qa', messages: 1, lastMessageAt: expect.any(String) },
          { conversationId: 'user__dev', messages: 3, lastMessageAt: last.at },
        ],
        usage: { calls: 2, inputTokens: 15, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.25, unpricedCalls: 1 },
      };
      expect(await backend.index.tally(first.sessionId)).toEqual(expected);
      // Another instance (another process, or this one after a restart) reads the same.
      expect(await open().index.tally(first.sessionId)).toEqual(expected);
      // An instance that counted before sees what is appended since.
      const other = open();
      await other.index.tally(first.sessionId);
      await appendUnderLease(backend, second, messageEntry('again'));
      expect((await other.index.tally(first.sessionId)).conversations[0]?.messages).toBe(2);
    });

    it('tallies a session with nothing in it as empty, and refuses one that does not exist', async () => {
      const backend = open();
      const session = await backend.sessions.create();
      expect(await backend.index.tally(session.id)).toEqual({
        conversations: [],
        usage: { calls: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, unpricedCalls: 0 },
      });
      await expect(backend.index.tally('20260101-000000-nosuch')).rejects.toMatchObject({ code: 'session_not_found' });
    });

    it('finds messages with every word searched for, as whole words in any case, newest first, and nothing for a word found nowhere', async () => {
      const backend = open();
      // Distinct times, one minute apart: the order of hits is by time.
      const at = (minute: number): string => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
      const older = await started(backend, 'user__dev');
      await appendUnderLease(backend, older, { ...messageEntry('Deploy the Parser to staging'), at: at(1) });
      await appendUnderLease(backend, older, { ...messageEntry('the parser tests pass'), at: at(2) });
      const newer = await started(backend, 'user__qa');
      await appendUnderLease(backend, newer, {
        ...messageEntry('', 'assistant'),
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'file_read', input: { path: 'src/parser.ts' } }],
        at: at(3),
      });
      await appendUnderLease(backend, newer, { ...messageEntry('parsers are not parser'), at: at(4) });
      const sessions = [
        { id: newer.sessionId, lastActiveAt: at(4) },
        { id: older.sessionId, lastActiveAt: at(2) },
      ];
      const search = (text: string, limit = 10) => open().index.search({ words: searchWords(text), sessions, limit });
      const parser = await search('PARSER');
      expect(parser.map((hit) => hit.sessionId)).toEqual([newer.sessionId, newer.sessionId, older.sessionId, older.sessionId]);
      expect(textsOf(parser.map((hit) => hit.message))).toEqual([
        'parsers are not parser',
        '', // the tool call's input names src/parser.ts
        'the parser tests pass',
        'Deploy the Parser to staging',
      ]);
      expect(parser.map((hit) => hit.conversationId)).toEqual(['user__qa', 'user__qa', 'user__dev', 'user__dev']);
      expect(textsOf((await search('parser, staging!')).map((hit) => hit.message))).toEqual(['Deploy the Parser to staging']);
      expect(await search('pars')).toEqual([]);
      expect(await search('nowhere')).toEqual([]);
      expect(await search('parser', 1)).toHaveLength(1);
      expect(await search('   ')).toEqual([]);
      // Only the sessions given are looked in.
      expect(await open().index.search({ words: ['staging'], sessions: [sessions[0]!], limit: 10 })).toEqual([]);
    });
  });
}
