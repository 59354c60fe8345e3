import { createReadStream, statSync } from 'node:fs';
import type { ClientConfig } from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';
import { getFileName, getPassword } from 'pgpass/lib/helper.js';

/**
 * Where an instance's connections go: the URL as pg reads it, or, for a URL from a workspace's
 * own file, the same fields with the password left to `pgpassOnly`. Parsed here, not given as
 * `connectionString`: pg lets the parsed URL's empty password override a `password` option and
 * then falls back to PGPASSWORD.
 */
export function connectionTarget(options: { url: string; urlFromWorkspaceFile?: boolean | undefined }): ClientConfig {
  if (!options.urlFromWorkspaceFile) return { connectionString: options.url };
  const config = parseIntoClientConfig(options.url);
  return typeof config.password === 'string' && config.password !== '' ? config : { ...config, password: pgpassOnly() };
}

/** What pg hands a `password` function: the connection's parameters, URL already applied. */
interface ConnectionInfo {
  host?: string | undefined;
  port?: number | string | undefined;
  database?: string | undefined;
  user?: string | undefined;
}

/**
 * The `password` option of the connections to a URL that a workspace's own `.legion/config.json`
 * names. That file may come with a cloned repository, so it may name anyone's server: left to
 * itself, pg would send that server the user's PGPASSWORD, which is meant for the user's own
 * database. Such a URL gets only a `~/.pgpass` (or `PGPASSFILE`) entry, which names the host,
 * port, database and user it is for, so a password goes only where the user said it may. pg
 * calls this only when the server asks for a password, and a password in the URL itself (never
 * in a workspace file: the config refuses it) comes first.
 */
export function pgpassOnly(): (connection?: ConnectionInfo) => Promise<string> {
  return (connection = {}) =>
    new Promise((resolve, reject) => {
      const file = passwordFile();
      const missing = (): void => reject(new Error(noPasswordProblem(connection, file)));
      if (file === undefined) return missing();
      const info = { host: connection.host, port: connection.port, database: connection.database, user: connection.user };
      getPassword(info, createReadStream(file), (password) => (password !== undefined ? resolve(password) : missing()));
    });
}

/** The password file, if there is one libpq would use: a plain file only its owner may read. */
function passwordFile(): string | undefined {
  const file = getFileName(process.env);
  try {
    const stats = statSync(file);
    if (!stats.isFile()) return undefined;
    return process.platform === 'win32' || (stats.mode & 0o077) === 0 ? file : undefined;
  } catch {
    return undefined;
  }
}

function noPasswordProblem(connection: ConnectionInfo, file: string | undefined): string {
  const entry = `${connection.host ?? 'localhost'}:${connection.port ?? 5432}:${connection.database ?? '*'}:${connection.user ?? '*'}:<password>`;
  return (
    `the server asks for a password, and this URL comes from the workspace's .legion/config.json, which gets a password only from ~/.pgpass ` +
    `(PGPASSWORD is never sent to a server a cloned repository's config names). Fix: add the line "${entry}" to ${file ?? getFileName(process.env)} (mode 0600), ` +
    'or put the URL in "storage.url" of the global config or in LEGION_DATABASE_URL'
  );
}
