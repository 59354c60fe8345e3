import type { TestProject } from 'vitest/node';
import { findPostgres, startPostgresServer } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test run's PostgreSQL server, or why there is none (the PostgreSQL tests are then skipped). */
    postgres: { adminUrl: string; dataDir: string } | { skipped: string };
  }
}

/**
 * One PostgreSQL server for the whole test run (vitest `globalSetup`), stopped and deleted at the
 * end; each test file makes its own databases on it (`useTestDatabase`).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const found = findPostgres();
  if (!found.ok) {
    console.warn(`warning: the PostgreSQL tests are skipped: ${found.reason}`);
    project.provide('postgres', { skipped: found.reason });
    return async () => {};
  }
  const server = await startPostgresServer(found);
  project.provide('postgres', { adminUrl: server.adminUrl, dataDir: server.dataDir });
  return () => server.stop();
}
