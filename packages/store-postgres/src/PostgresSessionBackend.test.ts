// The assertions are the contract suite's (@legion-collective/core/testing): every one of them runs against PostgreSQL.
import { describeSessionBackendContract, type SessionBackendHarness } from '@legion-collective/core/testing';
import { PostgresSessionBackend } from './PostgresSessionBackend.js';
import { createTestDatabase, postgresSkipped, sql } from './test-support/test-database.js';

const skipped = postgresSkipped();
if (skipped) describe.skip(`PostgresSessionBackend (skipped: ${skipped})`, () => it('runs against a real PostgreSQL', () => {}));
else {
  let database: Promise<string> | undefined;
  describeSessionBackendContract('PostgresSessionBackend', async (): Promise<SessionBackendHarness> => {
    // One database for the file, emptied before each test: the contract expects an empty store each time.
    database ??= createTestDatabase('contract').then(async (url) => {
      const migrating = new PostgresSessionBackend({ url });
      await migrating.ready();
      await migrating.close();
      return url;
    });
    const url = await database;
    await sql(
      url,
      'TRUNCATE legion.sessions, legion.logs, legion.entries, legion.leases, legion.agent_state, legion.artifacts, legion.file_claims',
    );
    return {
      open: (options) => new PostgresSessionBackend({ url, maxConnections: 4, ...options }),
      // What a crash leaves: a lease row an hour from expiry, naming a holder key no live connection holds.
      abandonLease: async (address, owner) => {
        await sql(
          url,
          "INSERT INTO legion.leases VALUES ($1, $2, $3, 'crashed', 4242, (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 3600000)",
          [address.sessionId, address.conversationId, owner],
        );
      },
      // What a crash leaves: a claim row naming a holder key no live connection holds.
      abandonFileClaim: async (claim) => {
        await sql(url, 'INSERT INTO legion.file_claims VALUES ($1, $2, $3, 4242, $4::jsonb)', [
          claim.path,
          claim.sessionId,
          claim.conversationId,
          JSON.stringify(claim),
        ]);
      },
      breakSession: async (sessionId) =>
        void (await sql(url, `UPDATE legion.sessions SET meta = '{"version": 1, "id": 7}' WHERE id = $1`, [sessionId])),
      breakConversation: async (address) =>
        void (await sql(
          url,
          `WITH next AS (UPDATE legion.logs SET last_seq = last_seq + 1 WHERE session_id = $1 AND log_id = $2 RETURNING last_seq)
           INSERT INTO legion.entries (session_id, log_id, seq, kind, body) SELECT $1, $2, last_seq, 'message', '{"kind":"message","id":"broken"}' FROM next`,
          [address.sessionId, address.conversationId],
        )),
      // As every append stores a record: the log's next number, the record's kind, its body as jsonb.
      storeRecord: async (sessionId, log, record) =>
        void (await sql(
          url,
          `WITH next AS (
             INSERT INTO legion.logs AS log (session_id, log_id, last_seq) VALUES ($1, $2, 1)
             ON CONFLICT (session_id, log_id) DO UPDATE SET last_seq = log.last_seq + 1 RETURNING last_seq)
           INSERT INTO legion.entries (session_id, log_id, seq, kind, body) SELECT $1, $2, last_seq, $3, $4::jsonb FROM next`,
          [sessionId, log, typeof record.kind === 'string' ? record.kind : log, JSON.stringify(record)],
        )),
      dispose: async () => {},
    };
  });
}
