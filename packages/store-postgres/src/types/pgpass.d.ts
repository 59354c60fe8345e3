// pgpass (pg's own ~/.pgpass reader) ships no types: the calls Legion makes. Its helper, not its
// main function, because the main one ignores ~/.pgpass whenever PGPASSWORD is set.
declare module 'pgpass/lib/helper.js' {
  interface ConnectionInfo {
    host?: string | undefined;
    port?: number | string | undefined;
    database?: string | undefined;
    user?: string | undefined;
  }
  /** `PGPASSFILE`, else `~/.pgpass` (`%APPDATA%/postgresql/pgpass.conf` on Windows). */
  export function getFileName(env?: NodeJS.ProcessEnv): string;
  /** The password of the first line that matches host, port, database and user. */
  export function getPassword(
    connection: ConnectionInfo,
    stream: NodeJS.ReadableStream,
    callback: (password: string | undefined) => void,
  ): void;
}
