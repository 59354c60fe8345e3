// The public API of @legion-collective/store-postgres.
export { PostgresSessionBackend } from './PostgresSessionBackend.js';
export type { PostgresSessionBackendOptions } from './PostgresSessionBackend.js';
export { SchemaTooNewError } from './schema.js';
export type { MigrationReport } from './schema.js';
export { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
export type { Migration } from './migrations.js';
export { displayUrl } from './display-url.js';
