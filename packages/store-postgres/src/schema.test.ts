import { PostgresSessionBackend } from './PostgresSessionBackend.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { createTestDatabase, postgresSkipped, sql } from './test-support/test-database.js';

const skipped = postgresSkipped();

describe.skipIf(skipped !== undefined)('schema migrations', () => {
  it('migrates an empty database once on first use, however many processes start at once', async () => {
    const url = await createTestDatabase('migrate');
    const backends = Array.from({ length: 5 }, () => new PostgresSessionBackend({ url, maxConnections: 2 }));
    try {
      await Promise.all(backends.map((backend) => backend.sessions.list()));
      const applied = await sql(url, 'SELECT version, name FROM legion.schema_migrations ORDER BY version');
      expect(applied.rows).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
      expect(await backends[0]!.schemaVersion()).toBe(SCHEMA_VERSION);
    } finally {
      await Promise.all(backends.map((backend) => backend.close()));
    }
  });

  it('shows what it would apply on a dry run, and changes nothing', async () => {
    const url = await createTestDatabase('migrate');
    const backend = new PostgresSessionBackend({ url });
    try {
      const report = await backend.migrate({ dryRun: true });
      expect(report).toMatchObject({ from: 0, to: SCHEMA_VERSION });
      expect(report.migrations.map((migration) => migration.version)).toEqual(MIGRATIONS.map((migration) => migration.version));
      expect(await backend.schemaVersion()).toBe(0);
      expect((await backend.migrate()).migrations).toHaveLength(MIGRATIONS.length);
      expect(await backend.migrate()).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION, migrations: [] });
    } finally {
      await backend.close();
    }
  });

  it('refuses a schema newer than it knows, naming both versions and the fix, and writes nothing', async () => {
    const url = await createTestDatabase('migrate');
    const first = new PostgresSessionBackend({ url });
    await first.sessions.create({ title: 'kept' });
    await first.close();
    await sql(url, "INSERT INTO legion.schema_migrations (version, name) VALUES ($1, 'from a newer Legion')", [SCHEMA_VERSION + 1]);
    const backend = new PostgresSessionBackend({ url });
    try {
      const refused = backend.sessions.create({ title: 'refused' });
      await expect(refused).rejects.toMatchObject({ code: 'schema_too_new' });
      await expect(refused).rejects.toThrow(
        `schema version ${SCHEMA_VERSION + 1}, but this Legion (@legion-collective/store-postgres) knows versions up to ${SCHEMA_VERSION}`,
      );
      await expect(refused).rejects.toThrow(/Fix: upgrade Legion/);
      await expect(backend.migrate()).rejects.toMatchObject({ code: 'schema_too_new' });
      expect((await sql(url, "SELECT meta->>'title' AS title FROM legion.sessions")).rows).toEqual([{ title: 'kept' }]);
    } finally {
      await backend.close();
    }
  });

  it('upgrades a version 2 database: counts and words of the messages already there are filled in', async () => {
    const url = await createTestDatabase('migrate');
    await sql(url, 'CREATE SCHEMA legion');
    await sql(
      url,
      'CREATE TABLE legion.schema_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    for (const migration of MIGRATIONS.filter((step) => step.version <= 2)) {
      await sql(url, migration.sql);
      await sql(url, 'INSERT INTO legion.schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
    }
    // As a version 2 Legion wrote them: a session, a conversation of two messages and a note, a usage record.
    const sessionId = '20260101-000000-aaaaaa';
    const meta = { version: 1, id: sessionId, createdAt: '2026-01-01T00:00:00.000Z', lastActiveAt: '2026-01-01T00:02:00.000Z' };
    await sql(url, 'INSERT INTO legion.sessions (id, last_active_at, meta) VALUES ($1, $2, $3)', [sessionId, meta.lastActiveAt, meta]);
    const message = (id: string, at: string, text: string) => ({
      kind: 'message',
      id,
      role: 'user',
      content: [{ type: 'text', text }],
      at,
    });
    const entries = [
      { kind: 'message', body: message('m1', '2026-01-01T00:01:00.000Z', 'Deploy the parser') },
      { kind: 'note', body: { kind: 'note', level: 'info', text: 'a note about parsers', at: '2026-01-01T00:01:30.000Z' } },
      { kind: 'message', body: message('m2', '2026-01-01T00:02:00.000Z', 'Done, staging is green.') },
    ];
    await sql(
      url,
      "INSERT INTO legion.logs (session_id, log_id, header, last_seq) VALUES ($1, 'user__dev', NULL, 3), ($1, 'usage', NULL, 1)",
      [sessionId],
    );
    for (const [index, entry] of entries.entries())
      await sql(url, "INSERT INTO legion.entries (session_id, log_id, seq, kind, body) VALUES ($1, 'user__dev', $2, $3, $4)", [
        sessionId,
        index + 1,
        entry.kind,
        entry.body,
      ]);
    const usage = {
      version: 1,
      at: meta.lastActiveAt,
      participantId: 'dev',
      conversationId: 'user__dev',
      chain: ['user'],
      provider: 'p',
      model: 'm',
      usage: { inputTokens: 7, outputTokens: 3 },
      costUsd: 0.5,
    };
    await sql(url, "INSERT INTO legion.entries (session_id, log_id, seq, kind, body) VALUES ($1, 'usage', 1, 'usage', $2)", [
      sessionId,
      usage,
    ]);
    const backend = new PostgresSessionBackend({ url });
    try {
      expect(await backend.index.tally(sessionId)).toEqual({
        conversations: [{ conversationId: 'user__dev', messages: 2, lastMessageAt: '2026-01-01T00:02:00.000Z' }],
        usage: { calls: 1, inputTokens: 7, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.5, unpricedCalls: 0 },
      });
      expect(await backend.schemaVersion()).toBe(SCHEMA_VERSION);
      const search = (words: string[]) =>
        backend.index.search({ words, sessions: [{ id: sessionId, lastActiveAt: meta.lastActiveAt }], limit: 10 });
      expect((await search(['staging', 'green'])).map((hit) => hit.message.id)).toEqual(['m2']);
      expect((await search(['parser'])).map((hit) => hit.message.id)).toEqual(['m1']);
      // A note is no message: its words are not found.
      expect(await search(['parsers'])).toEqual([]);
    } finally {
      await backend.close();
    }
  });
});
