// vitest `setupFiles` of the `postgres-backend` project: the engine's tests (vitest.config.ts,
// ON_EVERY_BACKEND) run once more with their sessions in PostgreSQL. Each test file gets a database;
// each test starts on it emptied, as each test starts on a new workspace's files.
import { registerTestBackend } from '@legion-collective/core/testing';
import { PostgresSessionBackend } from '../PostgresSessionBackend.js';
import { createTestDatabase, postgresSkipped, sql } from './test-database.js';

const skipped = postgresSkipped();
if (skipped === undefined) {
  let url: string | undefined;
  beforeAll(async () => {
    url = await createTestDatabase('engine');
    const migrating = new PostgresSessionBackend({ url });
    await migrating.ready();
    await migrating.close();
  });
  beforeEach(async () => {
    if (url) await sql(url, 'TRUNCATE legion.sessions, legion.logs, legion.entries, legion.leases, legion.agent_state, legion.artifacts');
  });
  registerTestBackend({
    kind: 'postgres',
    open: (options) => {
      if (!url) throw new Error('the test database is made before the tests (beforeAll)');
      return new PostgresSessionBackend({ url, maxConnections: 4, ...options });
    },
  });
}
