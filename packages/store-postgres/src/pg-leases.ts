import { randomBytes } from 'node:crypto';
import { LeaseLostError, type AcquireResult, type ConversationAddress, type Lease } from '@legion-collective/core/backend';
import type { Database } from './connection.js';
import type { Presence } from './presence.js';

/** The time leases are compared with: the backend's clock when it was given one (tests move it), else the database's. */
const NOW = 'coalesce($1::bigint, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)';

/**
 * Conversation leases as rows of `legion.leases`. A row is free to take when it has expired, or
 * when its holder is gone: the holder's process keeps an advisory lock on its key for as long as
 * its connection lives (`Presence`), and a crash ends the connection and frees the lock. Both are
 * tested in the one statement that takes the row (`pg_try_advisory_xact_lock_shared` on the old
 * holder's key, released when that statement commits), so two takers cannot both win.
 */
export class PostgresLeases {
  /** Tokens of the leases this instance holds, so that `close` gives them back. */
  private readonly held = new Map<string, ConversationAddress>();

  constructor(
    private readonly db: Database,
    private readonly presence: Presence,
    private readonly now: (() => number) | undefined,
  ) {}

  async acquire(address: ConversationAddress, owner: string, options: { ttlMs: number }): Promise<AcquireResult> {
    // Our own key must be locked before a row names it, or another process would take it for dead.
    await this.presence.ensure();
    const token = randomBytes(12).toString('hex');
    for (let attempt = 0; attempt < 3; attempt++) {
      const taken = await this.db.query<{ expires_at_ms: string }>(
        `WITH clock AS (SELECT ${NOW} AS now_ms)
         INSERT INTO legion.leases AS lease (session_id, conversation_id, owner, token, holder_key, expires_at_ms)
         SELECT $2, $3, $4, $5, $6::bigint, clock.now_ms + $7 FROM clock
         ON CONFLICT (session_id, conversation_id) DO UPDATE
           SET owner = EXCLUDED.owner, token = EXCLUDED.token, holder_key = EXCLUDED.holder_key, expires_at_ms = EXCLUDED.expires_at_ms
           WHERE lease.expires_at_ms <= EXCLUDED.expires_at_ms - $7 OR pg_try_advisory_xact_lock_shared(lease.holder_key)
         RETURNING expires_at_ms`,
        [this.now?.() ?? null, address.sessionId, address.conversationId, owner, token, this.presence.key, options.ttlMs],
      );
      const row = taken[0];
      if (row) {
        this.held.set(token, address);
        return { acquired: true, lease: this.lease(address, owner, token, Number(row.expires_at_ms), options.ttlMs) };
      }
      const holder = await this.db.query<{ owner: string; expires_at_ms: string }>(
        'SELECT owner, expires_at_ms FROM legion.leases WHERE session_id = $1 AND conversation_id = $2',
        [address.sessionId, address.conversationId],
      );
      const current = holder[0];
      // Released between the two statements: try again.
      if (current)
        return { acquired: false, holder: { owner: current.owner, expiresAt: new Date(Number(current.expires_at_ms)).toISOString() } };
    }
    return { acquired: false, holder: undefined };
  }

  async releaseAll(): Promise<void> {
    const tokens = [...this.held.keys()];
    this.held.clear();
    if (tokens.length > 0) await this.db.query('DELETE FROM legion.leases WHERE token = ANY($1::text[])', [tokens]);
  }

  private lease(address: ConversationAddress, owner: string, token: string, expiresAtMs: number, ttlMs: number): Lease {
    // A data property moved by `renew` (as the file backend's): no accessor keeps a turn's garbage alive.
    const lease: { -readonly [Key in keyof Lease]: Lease[Key] } = {
      owner,
      token,
      expiresAt: new Date(expiresAtMs).toISOString(),
      renew: async () => {
        // A process whose connection was cut gets its lock back first: until then others may take its leases.
        await this.presence.ensure();
        const renewed = await this.db.query<{ expires_at_ms: string }>(
          `UPDATE legion.leases SET expires_at_ms = ${NOW} + $5 WHERE session_id = $2 AND conversation_id = $3 AND token = $4 RETURNING expires_at_ms`,
          [this.now?.() ?? null, address.sessionId, address.conversationId, token, ttlMs],
          'legion-lease-renew',
        );
        const row = renewed[0];
        if (!row) {
          this.held.delete(token);
          throw new LeaseLostError(`conversation ${address.conversationId} of session ${address.sessionId}`, owner);
        }
        lease.expiresAt = new Date(Number(row.expires_at_ms)).toISOString();
      },
      release: async () => {
        // Only while it is still this lease's: a successor's row is left alone.
        this.held.delete(token);
        await this.db.query('DELETE FROM legion.leases WHERE token = $1', [token]);
      },
    };
    return lease;
  }
}
