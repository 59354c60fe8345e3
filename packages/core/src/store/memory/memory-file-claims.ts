import { FileClaimSchema, type FileClaim, type FileClaimStore, type TakeClaimResult } from '../records/file-claim.js';
import type { MemorySessionStore } from './MemorySessionStore.js';

/** File claims in a `MemorySessionStore`: a claim whose instance ended (`store.endProcess`) is free at once, as a dead process's lock file is. */
export class MemoryFileClaims implements FileClaimStore {
  constructor(
    private readonly store: MemorySessionStore,
    private readonly processId: string,
  ) {}

  async take(claim: FileClaim): Promise<TakeClaimResult> {
    const holder = this.live(claim.path);
    if (holder && !(holder.sessionId === claim.sessionId && holder.conversationId === claim.conversationId))
      return { taken: false, holder };
    if (!holder) this.store.fileClaims.set(claim.path, { claim: JSON.stringify(claim), processId: this.processId });
    return { taken: true };
  }

  async get(path: string): Promise<FileClaim | undefined> {
    return this.live(path);
  }

  async list(): Promise<FileClaim[]> {
    const claims: FileClaim[] = [];
    for (const path of this.store.fileClaims.keys()) {
      const claim = this.live(path);
      if (claim) claims.push(claim);
    }
    return claims.sort((a, b) => a.path.localeCompare(b.path));
  }

  async releaseConversation(sessionId: string, conversationId: string): Promise<void> {
    for (const [path, stored] of this.store.fileClaims) {
      if (stored.processId !== this.processId) continue;
      const claim = FileClaimSchema.parse(JSON.parse(stored.claim));
      if (claim.sessionId === sessionId && claim.conversationId === conversationId) this.store.fileClaims.delete(path);
    }
  }

  async release(path: string): Promise<boolean> {
    if (!this.live(path)) return false;
    this.store.fileClaims.delete(path);
    return true;
  }

  releaseAll(): void {
    for (const [path, stored] of this.store.fileClaims) if (stored.processId === this.processId) this.store.fileClaims.delete(path);
  }

  private live(path: string): FileClaim | undefined {
    const stored = this.store.fileClaims.get(path);
    if (!stored || this.store.isEnded(stored.processId)) return undefined;
    return FileClaimSchema.parse(JSON.parse(stored.claim));
  }
}
