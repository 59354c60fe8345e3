import { describeHolder, FileLock, LOCK_LEASE_MS, type LockHolder } from '../../file-lock.js';
import type { WorkspacePaths } from '../../workspace-paths.js';
import { LeaseLostError } from '../lease-lost-error.js';
import type { AcquireResult, ConversationAddress, Lease, LeaseHolder } from '../session-backend.js';

/**
 * Conversation leases on the lock files Legion has always used
 * (`sessions/<id>/locks/<conversation>.lock`, created with O_EXCL). The file
 * holds the holder's process identity, as before, plus the lease's `owner`
 * and `expiresAt`. A lock is taken over when:
 *   - its holder process is dead (pid and start time checked): at once, whatever the expiry;
 *   - its `expiresAt` has passed (by this backend's clock) without a renewal;
 *   - its holder cannot be checked (another machine) and the file was not touched
 *     for 30 s (the file lock's own rule, which its holder's timer keeps fresh).
 * A lock file without `expiresAt` (written by an older Legion) expires only by
 * its holder's death, as it always did.
 */
export class FileLeases {
  /** The locks this instance holds, by their token (the lease's fencing token). */
  private readonly held = new Map<string, FileLock>();

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly now: () => number,
    private readonly onAcquired: (address: ConversationAddress) => void,
  ) {}

  async acquire(address: ConversationAddress, owner: string, options: { ttlMs: number }): Promise<AcquireResult> {
    const path = this.paths.conversationLock(address.sessionId, address.conversationId);
    const lock = new FileLock(path, LOCK_LEASE_MS, { expired: (holder) => holder.expiresAt !== undefined && Date.parse(holder.expiresAt) <= this.now() });
    const expiresAt = new Date(this.now() + options.ttlMs).toISOString();
    if (!lock.tryAcquire(owner, { owner, expiresAt })) return { acquired: false, holder: leaseHolder(lock.holder()) };
    const token = lock.heldToken ?? '';
    this.held.set(token, lock);
    // A holder that died mid-write may have left a torn line; cut it before anything reads or appends.
    try {
      this.onAcquired(address);
    } catch (error) {
      this.release(lock);
      throw error;
    }
    // A data property moved by `renew`, not a getter: V8 keeps object literals with accessors (and all they
    // reach) through young-generation GCs, so a getter here put every turn's garbage in the old generation.
    const lease: { -readonly [Key in keyof Lease]: Lease[Key] } = {
      owner,
      token,
      expiresAt,
      renew: async () => {
        const next = new Date(this.now() + options.ttlMs).toISOString();
        if (!lock.extend(next)) {
          this.held.delete(token);
          throw new LeaseLostError(`conversation ${address.conversationId} of session ${address.sessionId}`, owner);
        }
        lease.expiresAt = next;
      },
      release: async () => this.release(lock),
    };
    return { acquired: true, lease };
  }

  /**
   * Throws `LeaseLostError` unless `lease` still holds the conversation's lock file. Read from the
   * file right before the append, in the same synchronous step (no other callback runs between the
   * check and the write); a takeover replaces the file, so a holder that was paused past its expiry
   * finds another token there.
   */
  assertHeld(address: ConversationAddress, lease: Lease): void {
    const lock = this.held.get(lease.token);
    if (lock && lock.path === this.paths.conversationLock(address.sessionId, address.conversationId)) {
      if (lock.stillHeld()) return;
      this.held.delete(lease.token);
    }
    throw new LeaseLostError(`conversation ${address.conversationId} of session ${address.sessionId}`, lease.owner);
  }

  releaseAll(): void {
    for (const lock of this.held.values()) lock.release();
    this.held.clear();
  }

  private release(lock: FileLock): void {
    // Removes the file only while it is still this lease's: a successor's lock is left alone.
    const token = lock.heldToken;
    lock.release();
    if (token !== undefined) this.held.delete(token);
  }
}

function leaseHolder(holder: LockHolder | undefined): LeaseHolder | undefined {
  if (!holder) return undefined;
  return { owner: holder.owner ?? describeHolder(holder), expiresAt: holder.expiresAt };
}
