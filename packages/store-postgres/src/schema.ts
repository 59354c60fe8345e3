import type { PoolClient } from 'pg';
import { LegionError } from '@legion-collective/core';
import { MIGRATIONS, SCHEMA_VERSION, type Migration } from './migrations.js';
import { displayUrl } from './display-url.js';

/** Serializes migrators across processes (an advisory lock key: "legion" in ASCII). */
const MIGRATION_LOCK = 0x6c6567696f6e;

export interface MigrationReport {
  /** The schema version before. 0: a database Legion never used. */
  from: number;
  to: number;
  /** Applied (or, on a dry run, to apply), oldest first. */
  migrations: Migration[];
}

/** The database's schema is newer than this code: it refuses to touch it. */
export class SchemaTooNewError extends LegionError {
  constructor(url: string, found: number) {
    super(
      'schema_too_new',
      `The database ${displayUrl(url)} has Legion schema version ${found}, but this Legion (@legion-collective/store-postgres) knows versions up to ${SCHEMA_VERSION}. ` +
        'A newer Legion migrated it. Fix: upgrade Legion on this machine to the version the other machines run, or point storage.url / LEGION_DATABASE_URL at another database.',
      { found, known: SCHEMA_VERSION },
    );
  }
}

/** The version the database is at (0: no Legion schema yet), read without a lock. */
export async function schemaVersion(client: PoolClient): Promise<number> {
  const exists = await client.query<{ present: boolean }>("SELECT to_regclass('legion.schema_migrations') IS NOT NULL AS present");
  if (!exists.rows[0]?.present) return 0;
  const result = await client.query<{ version: number | null }>('SELECT max(version)::int AS version FROM legion.schema_migrations');
  return result.rows[0]?.version ?? 0;
}

/**
 * Brings the schema up to this code's version, in one transaction under an advisory lock, so
 * processes starting at once migrate once; `dryRun` reports what it would apply and changes nothing.
 * A schema newer than the code is refused with `SchemaTooNewError`.
 */
export async function migrate(client: PoolClient, url: string, options: { dryRun?: boolean } = {}): Promise<MigrationReport> {
  const current = await schemaVersion(client);
  if (current > SCHEMA_VERSION) throw new SchemaTooNewError(url, current);
  if (current === SCHEMA_VERSION || options.dryRun)
    return { from: current, to: options.dryRun ? SCHEMA_VERSION : current, migrations: pending(current) };
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE SCHEMA IF NOT EXISTS legion');
    await client.query(
      'CREATE TABLE IF NOT EXISTS legion.schema_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    // Read again under the lock: another process may have migrated meanwhile.
    const locked = await schemaVersion(client);
    if (locked > SCHEMA_VERSION) throw new SchemaTooNewError(url, locked);
    const steps = pending(locked);
    for (const step of steps) {
      await client.query(step.sql);
      await client.query('INSERT INTO legion.schema_migrations (version, name) VALUES ($1, $2)', [step.version, step.name]);
    }
    await client.query('COMMIT');
    return { from: locked, to: SCHEMA_VERSION, migrations: steps };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

function pending(from: number): Migration[] {
  return MIGRATIONS.filter((migration) => migration.version > from).sort((a, b) => a.version - b.version);
}
