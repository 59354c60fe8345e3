import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** Why the PostgreSQL tests are skipped in this run, or undefined when they run. */
export function postgresSkipped(): string | undefined {
  const provided = inject('postgres');
  return 'skipped' in provided ? provided.skipped : undefined;
}

/** A new empty database on the run's server (see global-setup.ts): its URL. */
export async function createTestDatabase(prefix = 'legion'): Promise<string> {
  const provided = inject('postgres');
  if ('skipped' in provided) throw new Error(`no PostgreSQL server: ${provided.skipped}`);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: provided.adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return provided.adminUrl.replace('@/postgres?', `@/${name}?`);
}

/** Runs SQL on a database directly, as an operator (or a crash) would change it behind Legion's back. */
export async function sql(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}
