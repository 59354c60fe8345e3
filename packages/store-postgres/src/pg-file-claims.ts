import { FileClaimSchema, type FileClaim, type FileClaimStore, type TakeClaimResult } from '@legion-collective/core/backend';
import type { Database } from './connection.js';
import type { Presence } from './presence.js';

/** A row's holder is alive while its process keeps the advisory lock on its key (`Presence`); a crash ends the connection and the lock. */
const HOLDER_DEAD = 'pg_try_advisory_xact_lock_shared(claim.holder_key)';

/**
 * File claims as rows of `legion.file_claims`, told dead or alive as leases are (`PostgresLeases`):
 * a row whose holder's advisory lock is free belongs to a process that is gone, and is taken over
 * in the one statement that takes the row, so two takers cannot both win.
 */
export class PostgresFileClaims implements FileClaimStore {
  /**
   * `<session>/<conversation>` of the claims this instance took: a turn that claimed nothing (most
   * turns) ends without a round trip to the database.
   */
  private readonly claimedFor = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly presence: Presence,
  ) {}

  async take(claim: FileClaim): Promise<TakeClaimResult> {
    // Our own key must be locked before a row names it, or another process would take it for dead.
    await this.presence.ensure();
    for (let attempt = 0; attempt < 3; attempt++) {
      const taken = await this.db.query<{ path: string }>(
        `INSERT INTO legion.file_claims AS claim (path, session_id, conversation_id, holder_key, claim)
         VALUES ($1, $2, $3, $4::bigint, $5::jsonb)
         ON CONFLICT (path) DO UPDATE
           SET session_id = EXCLUDED.session_id, conversation_id = EXCLUDED.conversation_id, holder_key = EXCLUDED.holder_key, claim = EXCLUDED.claim
           WHERE ${HOLDER_DEAD}
         RETURNING path`,
        [claim.path, claim.sessionId, claim.conversationId, this.presence.key, JSON.stringify(claim)],
      );
      if (taken.length > 0) {
        this.claimedFor.add(`${claim.sessionId}/${claim.conversationId}`);
        return { taken: true };
      }
      const holder = await this.get(claim.path);
      // Released between the two statements: try again.
      if (!holder) continue;
      if (holder.sessionId === claim.sessionId && holder.conversationId === claim.conversationId) return { taken: true };
      return { taken: false, holder };
    }
    const holder = await this.get(claim.path);
    return holder ? { taken: false, holder } : { taken: true };
  }

  async get(path: string): Promise<FileClaim | undefined> {
    const rows = await this.db.query<{ claim: unknown }>(
      `SELECT claim.claim FROM legion.file_claims AS claim WHERE path = $1 AND NOT ${HOLDER_DEAD}`,
      [path],
    );
    return parse(rows[0]?.claim);
  }

  async list(): Promise<FileClaim[]> {
    const rows = await this.db.query<{ claim: unknown }>(
      `SELECT claim.claim FROM legion.file_claims AS claim WHERE NOT ${HOLDER_DEAD} ORDER BY path`,
      [],
    );
    return rows.map((row) => parse(row.claim)).filter((claim): claim is FileClaim => claim !== undefined);
  }

  async releaseConversation(sessionId: string, conversationId: string): Promise<void> {
    if (!this.claimedFor.delete(`${sessionId}/${conversationId}`)) return;
    await this.db.query('DELETE FROM legion.file_claims WHERE session_id = $1 AND conversation_id = $2 AND holder_key = $3::bigint', [
      sessionId,
      conversationId,
      this.presence.key,
    ]);
  }

  /** Gives back every claim this instance holds (it is closing). */
  async releaseAll(): Promise<void> {
    if (this.claimedFor.size === 0) return;
    this.claimedFor.clear();
    await this.db.query('DELETE FROM legion.file_claims WHERE holder_key = $1::bigint', [this.presence.key]);
  }

  async release(path: string): Promise<boolean> {
    const rows = await this.db.query<{ live: boolean }>(
      `DELETE FROM legion.file_claims AS claim WHERE path = $1 RETURNING NOT ${HOLDER_DEAD} AS live`,
      [path],
    );
    return rows[0]?.live === true;
  }
}

function parse(stored: unknown): FileClaim | undefined {
  const parsed = FileClaimSchema.safeParse(stored);
  return parsed.success ? parsed.data : undefined;
}
