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
});
