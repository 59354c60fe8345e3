import type { StorageWarning } from '@legion-collective/core';
import { PostgresSessionBackend } from './PostgresSessionBackend.js';
import { createTestDatabase, postgresSkipped, sql } from './test-support/test-database.js';
import { appendUnderLease } from '@legion-collective/core/testing';

// `context` reads the log's end, its newest compaction point and what follows in one statement; a
// newest point that cannot be read sends it back to the older points, one query at a time.
describe.skipIf(postgresSkipped() !== undefined)('context past an unreadable compaction point', () => {
  it('starts at the newest readable point, with a warning naming the broken one', async () => {
    const url = await createTestDatabase('context');
    const warnings: StorageWarning[] = [];
    const backend = new PostgresSessionBackend({ url, maxConnections: 2, onWarning: (warning) => warnings.push(warning) });
    try {
      const { id: sessionId } = await backend.sessions.create({ title: 'compactions' });
      const address = { sessionId, conversationId: 'user__dev' };
      const message = (id: string) => ({
        kind: 'message' as const,
        id,
        role: 'user' as const,
        content: [{ type: 'text' as const, text: id }],
        at: new Date().toISOString(),
      });
      await appendUnderLease(backend, address, message('before'));
      await appendUnderLease(backend, address, { kind: 'compaction', at: new Date().toISOString(), summary: 'readable summary' });
      await appendUnderLease(backend, address, message('between'));
      // A newer compaction point whose body is broken (no summary), as a bad write or a hand edit would leave it.
      await sql(
        url,
        `WITH next AS (UPDATE legion.logs SET last_seq = last_seq + 1 WHERE session_id = $1 AND log_id = $2 RETURNING last_seq)
         INSERT INTO legion.entries (session_id, log_id, seq, kind, body) SELECT $1, $2, last_seq, 'compaction', '{"kind":"compaction"}' FROM next`,
        [sessionId, address.conversationId],
      );
      await appendUnderLease(backend, address, message('after'));

      const context = await backend.conversations.context(address);
      expect(context.compaction?.summary).toBe('readable summary');
      expect(context.messages.map((entry) => entry.id)).toEqual(['between', 'after']);
      expect(context.cursor).toBe(await backend.conversations.end(address));
      expect(warnings.map((warning) => warning.problem)).toEqual([expect.stringMatching(/^skipped an unreadable compaction entry/)]);
    } finally {
      await backend.close();
    }
  });
});
