import { ConfigError } from '../../kernel/index.js';
import { WorkspacePaths } from '../../store/index.js';
import type { ResolvedConfig } from './config-schema.js';
import { globalConfigPath, loadConfig } from './load-config.js';

/** Where a workspace's sessions are kept, as its config and environment say. */
export type StorageSelection =
  | { kind: 'files' }
  | {
      kind: 'postgres';
      url: string;
      /** Where the URL came from: `LEGION_DATABASE_URL` or the config's `storage.url`. */
      source: 'LEGION_DATABASE_URL' | 'config';
      /**
       * The URL is the workspace's own `.legion/config.json`'s, which a cloned repository may
       * have written: pass it on as the backend's `urlFromWorkspaceFile`, so that the user's
       * PGPASSWORD never goes to a server the repository chose.
       */
      fromWorkspaceFile: boolean;
    };

/**
 * `LEGION_DATABASE_URL` (any non-empty value) selects PostgreSQL before the config does; else
 * `storage.kind` (`postgres` with a `storage.url`, or a `storage.url` alone); else the files.
 */
export function selectStorage(storage: ResolvedConfig['storage'], env: NodeJS.ProcessEnv, urlFromWorkspaceFile = false): StorageSelection {
  const fromEnv = env.LEGION_DATABASE_URL?.trim();
  if (storage.kind === 'files' && !fromEnv) return { kind: 'files' };
  if (fromEnv) return { kind: 'postgres', url: fromEnv, source: 'LEGION_DATABASE_URL', fromWorkspaceFile: false };
  if (storage.url !== undefined) return { kind: 'postgres', url: storage.url, source: 'config', fromWorkspaceFile: urlFromWorkspaceFile };
  if (storage.kind === 'postgres') {
    throw new ConfigError({
      file: globalConfigPath(env),
      field: 'storage.url',
      problem: '"storage.kind" is "postgres" but no database is named',
      fix: 'set "storage.url" to a postgres:// URL in the global config, or set LEGION_DATABASE_URL',
    });
  }
  return { kind: 'files' };
}

/**
 * The storage a workspace's config (defaults → global → workspace) and `env` select, read
 * without opening the workspace: what a command needs to know before it loads a backend.
 * Throws the `ConfigError` of a bad config file (a database password in the workspace file among them).
 */
export function storageSelection(options: {
  root: string;
  globalConfigFile?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
}): StorageSelection {
  return workspaceStorage(options).selection;
}

/**
 * `storageSelection` with the config it read, which `Legion.open` takes as its `config` so that
 * a command that opens the workspace next reads and checks the config files once, not twice.
 */
export function workspaceStorage(options: { root: string; globalConfigFile?: string | undefined; env?: NodeJS.ProcessEnv | undefined }): {
  selection: StorageSelection;
  config: ResolvedConfig;
} {
  const env = options.env ?? process.env;
  const { config, storageUrlFromWorkspaceFile } = loadConfig({
    workspaceConfigFile: new WorkspacePaths(options.root).configFile,
    globalConfigFile: options.globalConfigFile,
    env,
  });
  return { selection: selectStorage(config.storage, env, storageUrlFromWorkspaceFile), config };
}
