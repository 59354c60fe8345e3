import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FileLock, LOCK_LEASE_MS } from '../fs/file-lock.js';
import type { WorkspacePaths } from '../fs/workspace-paths.js';
import { FileClaimSchema, type FileClaim, type FileClaimStore, type TakeClaimResult } from '../records/file-claim.js';

/**
 * File claims as lock files, `.legion/run/file-claims/<hash of the path>.lock`: the same `FileLock`
 * a conversation lease is, so a claim whose process died (SIGKILL, crash) is taken over at once, by
 * the holder's process identity, and one whose holder cannot be checked once its file went untouched
 * for `LOCK_LEASE_MS`. The claim itself rides in the lock's `owner` (JSON).
 */
export class FileClaims implements FileClaimStore {
  /** The locks this instance holds, by path. */
  private readonly held = new Map<string, { lock: FileLock; claim: FileClaim }>();

  constructor(private readonly paths: WorkspacePaths) {}

  async take(claim: FileClaim): Promise<TakeClaimResult> {
    const mine = this.held.get(claim.path);
    if (mine && !mine.lock.stillHeld()) this.held.delete(claim.path);
    else if (mine && sameConversation(mine.claim, claim)) return { taken: true };
    const lock = this.lockOf(claim.path);
    for (let attempt = 0; attempt < 3; attempt++) {
      if (lock.tryAcquire('file claim', { owner: JSON.stringify(claim) })) {
        this.held.set(claim.path, { lock, claim });
        return { taken: true };
      }
      const holder = this.liveClaim(lock);
      // Released between the two steps: try again.
      if (!holder) continue;
      // The same conversation in another instance (a process that resumed it): it holds the path already.
      if (sameConversation(holder, claim)) return { taken: true };
      return { taken: false, holder };
    }
    const holder = this.liveClaim(lock);
    return holder ? { taken: false, holder } : { taken: true };
  }

  async get(path: string): Promise<FileClaim | undefined> {
    return this.liveClaim(this.lockOf(path));
  }

  async list(): Promise<FileClaim[]> {
    let names: string[];
    try {
      names = readdirSync(this.paths.fileClaimsDir);
    } catch {
      return [];
    }
    const claims: FileClaim[] = [];
    for (const name of names) {
      if (!name.endsWith('.lock')) continue;
      const claim = this.liveClaim(new FileLock(join(this.paths.fileClaimsDir, name), LOCK_LEASE_MS));
      if (claim) claims.push(claim);
    }
    return claims.sort((a, b) => a.path.localeCompare(b.path));
  }

  async releaseConversation(sessionId: string, conversationId: string): Promise<void> {
    for (const [path, mine] of this.held) {
      if (mine.claim.sessionId !== sessionId || mine.claim.conversationId !== conversationId) continue;
      // Removes the file only while it is still this claim's: a successor's is left alone.
      mine.lock.release();
      this.held.delete(path);
    }
  }

  async release(path: string): Promise<boolean> {
    const lock = this.lockOf(path);
    if (!this.liveClaim(lock)) return false;
    const mine = this.held.get(path);
    this.held.delete(path);
    if (mine) mine.lock.release();
    else lock.forceRemove();
    return true;
  }

  /** Gives back what this instance holds (its process is closing the backend). */
  releaseAll(): void {
    for (const mine of this.held.values()) mine.lock.release();
    this.held.clear();
  }

  private lockOf(path: string): FileLock {
    const name = createHash('sha256').update(path).digest('hex').slice(0, 32);
    return new FileLock(join(this.paths.fileClaimsDir, `${name}.lock`), LOCK_LEASE_MS);
  }

  /** The lock's claim while its holder lives; a dead holder's, or an unreadable one, is none. */
  private liveClaim(lock: FileLock): FileClaim | undefined {
    const holder = lock.liveHolder();
    if (!holder?.owner) return undefined;
    try {
      const parsed = FileClaimSchema.safeParse(JSON.parse(holder.owner));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }
}

function sameConversation(a: FileClaim, b: FileClaim): boolean {
  return a.sessionId === b.sessionId && a.conversationId === b.conversationId;
}
