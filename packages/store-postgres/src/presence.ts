import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Client, Notification, QueryResultRow } from 'pg';
import { sessionSettings, type DatabaseOptions, type IdleConnection } from './connection.js';
import { connectionTarget } from './workspace-password.js';
import { AGENT_STATE_CHANNEL, AgentStateCache } from './agent-state-cache.js';

/** The channel every instance notifies on after an append; the payload is the session's id. */
export const CHANGES_CHANNEL = 'legion_changes';

/**
 * The one long-lived connection of an instance. It holds an advisory lock on this instance's
 * random key for as long as it lives, so a lease row naming the key is known to be held by a live
 * process (a crashed one's connection ends, and with it the lock); and it LISTENs, so followers
 * wake on other processes' appends. When it breaks it is opened again, and every watcher is woken:
 * what was notified meanwhile is lost.
 */
export class Presence implements IdleConnection {
  /** A signed 64-bit advisory lock key, as text (pg passes bigints as strings). */
  readonly key = BigInt.asIntN(64, randomBytes(8).readBigUInt64BE()).toString();
  private client: Client | undefined;
  private connecting: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly watchers = new Map<string, Set<() => void>>();
  /** Statements of ours under way on the connection. */
  private running = 0;
  /** Agent state read through this connection's notifications: valid only while it listens. */
  readonly agentState = new AgentStateCache(() => this.client !== undefined);

  constructor(private readonly options: DatabaseOptions) {}

  /** Connected, the key locked and listening; connects (again) if need be. */
  async ensure(): Promise<void> {
    if (this.closed) throw new Error('this PostgreSQL backend is closed');
    if (this.client) return;
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * Runs a prepared statement on this connection when it is open and has none of ours under way;
   * else undefined, and the caller uses the pool (see `Database.queryNotifying`). It never
   * connects: an instance that holds no lease and follows nothing has no listener to spare.
   */
  queryIfIdle<Row extends QueryResultRow>(text: string, values: readonly unknown[], name: string): Promise<Row[]> | undefined {
    const client = this.client;
    if (!client || this.running > 0) return undefined;
    this.running++;
    return client.query<Row>({ text, values: values as unknown[], name }).then(
      (result) => {
        this.running--;
        return result.rows;
      },
      (error: unknown) => {
        this.running--;
        throw error;
      },
    );
  }

  watch(sessionId: string, onChange: () => void): () => void {
    let listeners = this.watchers.get(sessionId);
    if (!listeners) this.watchers.set(sessionId, (listeners = new Set()));
    listeners.add(onChange);
    this.ensure().catch(() => this.scheduleRetry());
    return () => {
      listeners.delete(onChange);
      if (listeners.size === 0 && this.watchers.get(sessionId) === listeners) this.watchers.delete(sessionId);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    // The pool's settings: appends run here too (`queryIfIdle`), and must commit as the pool's do.
    const client = new pg.Client({
      ...connectionTarget(this.options),
      application_name: this.options.applicationName ?? 'legion',
      ...sessionSettings(this.options),
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message: Notification) => {
      if (message.channel === CHANGES_CHANNEL && message.payload) this.wake(message.payload);
      else if (message.channel === AGENT_STATE_CHANNEL && message.payload) this.agentState.drop(message.payload);
    });
    try {
      await client.connect();
      await client.query('SELECT pg_advisory_lock($1::bigint)', [this.key]);
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      await client.query(`LISTEN ${AGENT_STATE_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.agentState.clear();
    // Whatever was notified before we listened (or while we were away) is unknown: every follower reads.
    for (const sessionId of this.watchers.keys()) this.wake(sessionId);
  }

  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.agentState.clear();
    client.end().catch(() => undefined);
    if (this.watchers.size > 0) this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.watchers.size > 0) this.ensure().catch(() => this.scheduleRetry());
    }, 500);
    // Following alone does not keep a process alive.
    this.retry.unref();
  }

  private wake(sessionId: string): void {
    const listeners = this.watchers.get(sessionId);
    if (listeners) for (const listener of [...listeners]) setImmediate(listener);
  }
}
