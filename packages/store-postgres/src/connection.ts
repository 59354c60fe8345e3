import pg from 'pg';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { migrate, SchemaTooNewError } from './schema.js';
import { connectionTarget } from './workspace-password.js';

export interface DatabaseOptions {
  url: string;
  /** Connections this instance may open at once for its queries (default 10); one more follows and holds leases. */
  maxConnections?: number | undefined;
  /** `application_name` of its connections, as `pg_stat_activity` shows them (default `legion`). */
  applicationName?: string | undefined;
  /**
   * When an append is durable, as the file backend's `storage.fsync`: `message`, at its commit
   * (the server's `synchronous_commit`, a WAL flush per entry); `turn` (default), at `flush`, which
   * the engine calls when a turn ends (appends commit with `synchronous_commit = off`: visible to
   * every process at once, and a server crash loses at most the last unflushed ones, whole and in
   * order, never half an entry); `never`, left to the server. Approval decisions and question
   * outcomes are always durable at their commit.
   */
  durability?: 'message' | 'turn' | 'never' | undefined;
  /**
   * The URL came from a workspace's own config file, which a cloned repository may have written:
   * its connections take a password only from `~/.pgpass` (matched to the host), never from
   * PGPASSWORD, which pg would otherwise send to whatever server the URL names
   * (`workspace-password.ts`). `StorageSelection.fromWorkspaceFile` says when.
   */
  urlFromWorkspaceFile?: boolean | undefined;
}

/** The settings every connection of an instance starts with: the appends' durability (see `DatabaseOptions.durability`). */
export function sessionSettings(options: DatabaseOptions): { options?: string } {
  return (options.durability ?? 'turn') !== 'message' ? { options: '-c synchronous_commit=off' } : {};
}

/** A connection that takes a statement only when it has none of ours under way (see `Presence.queryIfIdle`). */
export interface IdleConnection {
  queryIfIdle<Row extends QueryResultRow>(text: string, values: readonly unknown[], name: string): Promise<Row[]> | undefined;
}

/**
 * One instance's connections: a pool for queries, opened lazily, with the schema checked (and
 * migrated) before the first query goes out.
 */
export class Database {
  readonly pool: Pool;
  private ready: Promise<void> | undefined;
  /** The instance's listening connection, set by the backend: statements that notify go there first (`queryNotifying`). */
  listening: IdleConnection | undefined;

  constructor(readonly options: DatabaseOptions) {
    this.pool = new pg.Pool({
      ...connectionTarget(options),
      max: options.maxConnections ?? 10,
      application_name: options.applicationName ?? 'legion',
      // An idle connection does not keep a finished command's process alive.
      allowExitOnIdle: true,
      idleTimeoutMillis: 10_000,
      ...sessionSettings(options),
    });
    // A connection that breaks while idle (the server restarted) is dropped by the pool; the next
    // query opens another. Without a listener the error would end the process.
    this.pool.on('error', () => undefined);
  }

  /** Resolves once the schema is this code's (migrating it if older); rejects for good on a newer one. */
  async whenReady(): Promise<void> {
    this.ready ??= this.withClient((client) => migrate(client, this.options.url)).then(
      () => undefined,
      (error: unknown) => {
        // A database that could not be reached may be reached later; a newer schema stays newer.
        if (!(error instanceof SchemaTooNewError)) this.ready = undefined;
        throw error;
      },
    );
    return this.ready;
  }

  /**
   * One statement. `name` makes it a prepared statement, parsed and planned once per connection:
   * for the statements of every step (appends, lease renewals), which would otherwise be planned anew each time.
   */
  async query<Row extends QueryResultRow>(text: string, values?: readonly unknown[], name?: string): Promise<Row[]> {
    await this.whenReady();
    const result = await this.pool.query<Row>({ text, values: values as unknown[] | undefined, ...(name ? { name } : {}) });
    return result.rows;
  }

  /**
   * A prepared statement that sends a NOTIFY: on the listening connection when it is idle, else on
   * the pool. PostgreSQL delivers a notification to every listening backend of the database by
   * waking it; sent from the listening backend itself, it is delivered by that backend as the
   * statement ends, in the same reply, so this instance's own listener costs neither a second
   * server process's wake-up nor a second socket read per append (a fifth of the server's CPU per
   * step of the agent loop: bench/pg-store.mjs). Only when idle: concurrent appends (parallel
   * delegates) still go out side by side on the pool, and other processes' notifications wait
   * behind one statement at most.
   */
  async queryNotifying<Row extends QueryResultRow>(text: string, values: readonly unknown[], name: string): Promise<Row[]> {
    await this.whenReady();
    return this.listening?.queryIfIdle<Row>(text, values, name) ?? this.query<Row>(text, values, name);
  }

  /** Runs `work` in one transaction on one connection, rolled back if it throws. */
  async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    await this.whenReady();
    return this.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async withClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      return await work(client);
    } catch (error) {
      // A connection the server dropped goes, instead of back to the pool.
      if (isConnectionError(error)) broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async end(): Promise<void> {
    await this.pool.end();
  }
}

/** An error of the connection, not of the statement: the server went away or refused us. */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (code.startsWith('08') ||
      code === '57P01' ||
      code === '57P02' ||
      code === '57P03' ||
      code === 'ECONNREFUSED' ||
      code === 'ECONNRESET' ||
      code === 'ENOENT' ||
      code === 'EPIPE')
  )
    return true;
  return /Connection terminated|connection (?:closed|ended)|Client has encountered a connection error/i.test(error.message);
}
