import { describeHolder, FileLock, LOCK_LEASE_MS, type LockHolder } from '../fs/file-lock.js';
import type { WorkspacePaths } from '../fs/workspace-paths.js';
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
/** Nobody can take a lease over this long before it expires: a margin for a holder paused between its check and its write. */
const FENCE_MARGIN_MS = 1_000;

interface HeldLock {
  lock: FileLock;
  /** The conversation it locks: compared on every append, so kept rather than its lock path rebuilt. */
  sessionId: string;
  conversationId: string;
  /** When the lease expires by this backend's clock; moved by `renew`. */
  expiresAtMs: number;
  /** Before expiry by at least this, an append need not read the lock file. */
  marginMs: number;
}

export class FileLeases {
  /** The locks this instance holds, by their token (the lease's fencing token). */
  private readonly held = new Map<string, HeldLock>();

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly now: () => number,
    private readonly onAcquired: (address: ConversationAddress) => void,
  ) {}

  async acquire(address: ConversationAddress, owner: string, options: { ttlMs: number }): Promise<AcquireResult> {
    const path = this.paths.conversationLock(address.sessionId, address.conversationId);
    const lock = new FileLock(path, LOCK_LEASE_MS, {
      expired: (holder) => holder.expiresAt !== undefined && Date.parse(holder.expiresAt) <= this.now(),
    });
    const expiresAtMs = this.now() + options.ttlMs;
    const expiresAt = new Date(expiresAtMs).toISOString();
    if (!lock.tryAcquire(owner, { owner, expiresAt })) return { acquired: false, holder: leaseHolder(lock.holder()) };
    const token = lock.heldToken ?? '';
    const held: HeldLock = {
      lock,
      sessionId: address.sessionId,
      conversationId: address.conversationId,
      expiresAtMs,
      marginMs: Math.min(FENCE_MARGIN_MS, Math.floor(options.ttlMs / 3)),
    };
    this.held.set(token, held);
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
        const nextMs = this.now() + options.ttlMs;
        const next = new Date(nextMs).toISOString();
        if (!lock.extend(next)) {
          this.held.delete(token);
          throw new LeaseLostError(`conversation ${address.conversationId} of session ${address.sessionId}`, owner);
        }
        held.expiresAtMs = nextMs;
        lease.expiresAt = next;
      },
      release: async () => this.release(lock),
    };
    return { acquired: true, lease };
  }

  /**
   * Throws `LeaseLostError` unless `lease` still holds the conversation's lock file, right before
   * the append and in the same synchronous step (no other callback of this process runs between
   * the check and the write). Another process takes a live holder's lock over only once its expiry
   * has passed (one machine, one clock) or, when it cannot check the holder, once the file went
   * untouched for `LOCK_LEASE_MS`: while neither can have happened yet (with a margin), no read is
   * needed; past that (a holder paused past its expiry), the file says whose it is: a takeover
   * replaces it with one holding another token.
   */
  assertHeld(address: ConversationAddress, lease: Lease): void {
    const held = this.held.get(lease.token);
    if (held && held.sessionId === address.sessionId && held.conversationId === address.conversationId) {
      if (this.now() < held.expiresAtMs - held.marginMs && held.lock.refreshedWithin(LOCK_LEASE_MS - held.marginMs)) return;
      if (held.lock.stillHeld()) return;
      this.held.delete(lease.token);
    }
    throw new LeaseLostError(`conversation ${address.conversationId} of session ${address.sessionId}`, lease.owner);
  }

  releaseAll(): void {
    for (const held of this.held.values()) held.lock.release();
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
