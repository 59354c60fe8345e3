import { resolve } from 'node:path';
import {
  findWorkspaceRoot,
  Legion,
  LegionError,
  type OpenLegionOptions,
  type SessionBackend,
  type StorageWarning,
} from '@legion-collective/core';
import { workspaceStorage, type StorageSelection } from '@legion-collective/core/management';

/** The workspace a command works in: the one named, or the nearest one above the current directory. */
export function resolveWorkspace(explicit: string | undefined): string {
  if (explicit) {
    const root = resolve(explicit);
    if (!findWorkspaceRoot(root))
      throw new LegionError('no_workspace', `${root} has no .legion/ directory. Run "legion init ${explicit}" first.`);
    return root;
  }
  const root = findWorkspaceRoot(process.cwd());
  if (!root)
    throw new LegionError('no_workspace', `No .legion/ workspace in ${process.cwd()} or above it. Run "legion init" to create one.`);
  return root;
}

/**
 * `Legion.open` with the sessions where the workspace's config (or LEGION_DATABASE_URL) keeps them.
 * The PostgreSQL backend, and its driver, are loaded only for a workspace that uses it: every
 * other command starts as fast as before.
 */
export async function openLegion(options: OpenLegionOptions): Promise<Legion> {
  if (options.backend) return Legion.open(options);
  // The config read here is the one Legion.open uses: the files are read and checked once.
  const { selection: selected, config } = workspaceStorage({
    root: options.root,
    globalConfigFile: options.globalConfigFile,
    env: options.env,
  });
  if (selected.kind === 'files') return Legion.open({ ...options, config });
  let legion: Legion | undefined;
  // Its warnings go to the events of the Legion made next, as the file backend's do.
  const backend = await openPostgresBackend(selected, (warning) => legion?.sessions.warn(warning));
  try {
    legion = Legion.open({ ...options, config, backend });
    return legion;
  } catch (error) {
    await backend.close();
    throw error;
  }
}

/** The PostgreSQL backend on `url`, connected and its schema checked (or migrated), or a clear error. */
export async function openPostgresBackend(
  selected: Extract<StorageSelection, { kind: 'postgres' }>,
  onWarning?: (warning: StorageWarning) => void,
): Promise<SessionBackend & { migrate(options?: { dryRun?: boolean }): Promise<MigrationOutcome>; schemaVersion(): Promise<number> }> {
  const { url, source } = selected;
  const { PostgresSessionBackend, displayUrl } = await import('@legion-collective/store-postgres');
  // A URL from the workspace's own file never gets the user's PGPASSWORD (store-postgres README, "Passwords").
  const backend = new PostgresSessionBackend({ url, onWarning, urlFromWorkspaceFile: selected.fromWorkspaceFile });
  try {
    await backend.ready();
  } catch (error) {
    await backend.close();
    throw databaseError(error, displayUrl(url), source);
  }
  return backend;
}

/** A `LegionError` as it is; anything else (the driver's connection errors) as one naming the database and the fix. */
export function databaseError(error: unknown, shownUrl: string, source: string): LegionError {
  if (error instanceof LegionError) return error;
  return new LegionError(
    'database_unreachable',
    `Could not use the PostgreSQL database ${shownUrl} (from ${source === 'config' ? 'the "storage.url" config' : 'LEGION_DATABASE_URL'}): ${(error as Error).message}. Fix: start the database or correct the URL; unset LEGION_DATABASE_URL (or "storage.kind") to keep sessions in the workspace's files.`,
    { source },
    { cause: error },
  );
}

export interface MigrationOutcome {
  from: number;
  to: number;
  migrations: Array<{ version: number; name: string; sql: string }>;
}
