import { closeSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { LegionError } from '../../kernel/index.js';
import { currentProcessIdentity, processState, type ProcessIdentity } from './process-identity.js';
import { readRegularFileSync } from './regular-file.js';

export interface LockHolder extends ProcessIdentity {
  token: string;
  since: string;
  purpose?: string | undefined;
  /** Who holds it, in the holder's words (a session backend's lease owner). */
  owner?: string | undefined;
  /** A lease's expiry (ISO): past it, and not extended, the lock may be taken over. */
  expiresAt?: string | undefined;
}

export interface FileLockOptions {
  /** Whether a live holder's lease has run out (by the caller's clock); such a lock is taken over. */
  expired?: ((holder: LockHolder) => boolean) | undefined;
}

/**
 * A steal marker, or a lock file without a readable holder, older than this was
 * left by a process that died between creating the file and writing it.
 */
const STALE_MS = 2_000;
/**
 * A holder this process cannot check (another machine, kernel or pid
 * namespace) keeps the lock only while it renews it: the holder touches the
 * file every third of this, and a file untouched for this long is taken over.
 */
export const LOCK_LEASE_MS = 30_000;

/**
 * A lock across processes: a file created with O_EXCL holding the owner's
 * identity (pid, start time, boot id, pid namespace). A holder that died
 * (SIGKILL, crash) is detected at once, with no timeout to wait out, even when
 * a new process got its pid; a holder that cannot be checked is judged by its lease.
 */
export class FileLock {
  private token: string | undefined;
  private renewal: NodeJS.Timeout | undefined;
  /** When this instance last wrote or touched the lock file (Date.now), while it holds it. */
  private refreshedAt = 0;

  constructor(
    readonly path: string,
    private readonly leaseMs = LOCK_LEASE_MS,
    private readonly options: FileLockOptions = {},
  ) {}

  get held(): boolean {
    return this.token !== undefined;
  }

  /** The token this instance wrote into the lock file when it took it (undefined when it holds none). */
  get heldToken(): string | undefined {
    return this.token;
  }

  /** Whether this instance wrote or touched the lock file within the last `ms` (a holder that cannot be checked keeps it only so). */
  refreshedWithin(ms: number): boolean {
    return Date.now() - this.refreshedAt < ms;
  }

  /**
   * Whether the lock file is still this instance's (a takeover replaces it with one holding
   * another token): read from the file at each call, so a holder that was paused learns it.
   */
  stillHeld(): boolean {
    const token = this.token;
    return token !== undefined && this.holder()?.token === token;
  }

  /** Takes the lock if it is free (or its holder is dead); never waits. */
  tryAcquire(purpose?: string, lease: { owner?: string; expiresAt?: string } = {}): boolean {
    if (this.token !== undefined) return false;
    for (let attempt = 0; attempt < 3; attempt++) {
      const token = randomBytes(8).toString('hex');
      // Object.assign, not `{ ...base, more }`: V8 keeps objects built by a spread plus further properties through
      // young-generation GCs, so per-turn garbage would pile up in the old generation (bench/memory-runs.mjs).
      if (
        createExclusive(this.path, Object.assign({}, currentProcessIdentity(), { token, since: new Date().toISOString(), purpose }, lease))
      ) {
        this.token = token;
        this.refreshedAt = Date.now();
        this.renewLease();
        return true;
      }
      const stale = this.staleLock();
      if (!stale) return false;
      this.steal(stale);
    }
    return false;
  }

  /**
   * Moves a held lease's expiry; false if the lock is no longer this one's (taken
   * over). The steal marker is held meanwhile, so no stealer removes the file
   * between the check and the rewrite.
   */
  extend(expiresAt: string): boolean {
    const token = this.token;
    if (token === undefined) return false;
    const marker = `${this.path}.steal`;
    for (
      let attempt = 0;
      !createExclusive(marker, { ...currentProcessIdentity(), token: 'steal', since: new Date().toISOString() });
      attempt++
    ) {
      if (attempt >= 50) return false;
      try {
        if (Date.now() - statSync(marker).mtimeMs > STALE_MS) unlinkSync(marker);
      } catch {
        // the other steal finished meanwhile
      }
    }
    try {
      const holder = this.holder();
      if (holder?.token !== token) return false;
      const temp = `${this.path}.${randomBytes(4).toString('hex')}.tmp`;
      writeFileSync(temp, JSON.stringify({ ...holder, expiresAt }), { flag: 'wx' });
      renameSync(temp, this.path);
      this.refreshedAt = Date.now();
      return true;
    } finally {
      try {
        unlinkSync(marker);
      } catch {
        // judged stale and removed by a waiter
      }
    }
  }

  /** Waits for the lock, polling; `onWait` is called once with the current holder. */
  async acquire(
    options: { purpose?: string; signal?: AbortSignal; timeoutMs?: number; onWait?: (holder: LockHolder | undefined) => void } = {},
  ): Promise<void> {
    // Waiting on a lock this instance already holds would wait forever.
    if (this.held) throw new LegionError('lock_already_held', `This process already holds the lock ${this.path}.`, { path: this.path });
    const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
    let delay = 5;
    let told = false;
    for (;;) {
      options.signal?.throwIfAborted();
      if (this.tryAcquire(options.purpose)) return;
      if (Date.now() >= deadline) {
        throw new LegionError('lock_timeout', `Timed out waiting for lock ${this.path} held by ${describeHolder(this.holder())}.`, {
          path: this.path,
        });
      }
      if (!told) {
        told = true;
        options.onWait?.(this.holder());
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 200);
    }
  }

  release(): void {
    if (this.token === undefined) return;
    clearInterval(this.renewal);
    this.renewal = undefined;
    const holder = this.holder();
    if (holder?.token === this.token) {
      try {
        unlinkSync(this.path);
      } catch {
        // already gone: nothing to release
      }
    }
    this.token = undefined;
  }

  /** Touches the lock file while it is held, so that a process that cannot check this one sees it is alive. */
  private renewLease(): void {
    const token = this.token;
    this.renewal = setInterval(
      () => {
        try {
          if (this.holder()?.token !== token) return;
          const now = new Date();
          utimesSync(this.path, now, now);
          this.refreshedAt = now.getTime();
        } catch {
          // gone: release() or a takeover will sort it out
        }
      },
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
    // A lock held must not keep the process alive on its own.
    this.renewal.unref();
  }

  holder(): LockHolder | undefined {
    return this.readLock()?.holder;
  }

  /** The holder while it may keep the lock: undefined when there is none, or it could be taken over (dead, expired). */
  liveHolder(): LockHolder | undefined {
    const lock = this.readLock();
    if (!lock?.holder || this.staleLock()) return undefined;
    return lock.holder;
  }

  /**
   * Removes the lock whoever holds it (a person freeing what a live holder keeps): guarded by the
   * steal marker like a takeover, so it removes the lock it read and never a successor's.
   */
  forceRemove(): void {
    const lock = this.readLock();
    if (lock) this.steal({ token: lock.holder?.token, mtimeMs: lock.mtimeMs });
  }

  private readLock(): { holder: LockHolder | undefined; mtimeMs: number } | undefined {
    try {
      const mtimeMs = statSync(this.path).mtimeMs;
      return { holder: parseHolder(readRegularFileSync(this.path).toString('utf8')), mtimeMs };
    } catch {
      return undefined;
    }
  }

  /**
   * The current lock if it can be taken over: its holder is dead, or it has no
   * readable holder and is too old to be a file another process is still writing.
   */
  private staleLock(): { token: string | undefined; mtimeMs: number } | undefined {
    const lock = this.readLock();
    if (!lock) return undefined;
    if (lock.holder) {
      const state = processState(lock.holder);
      const expired = (state === 'unknown' && Date.now() - lock.mtimeMs > this.leaseMs) || this.options.expired?.(lock.holder) === true;
      return state === 'dead' || expired ? { token: lock.holder.token, mtimeMs: lock.mtimeMs } : undefined;
    }
    return Date.now() - lock.mtimeMs > STALE_MS ? { token: undefined, mtimeMs: lock.mtimeMs } : undefined;
  }

  /** Removes a dead holder's lock, guarded so that two stealers cannot remove a live successor. */
  private steal(stale: { token: string | undefined; mtimeMs: number }): void {
    const marker = `${this.path}.steal`;
    if (!createExclusive(marker, { ...currentProcessIdentity(), token: 'steal', since: new Date().toISOString() })) {
      try {
        if (Date.now() - statSync(marker).mtimeMs > STALE_MS) unlinkSync(marker);
      } catch {
        // another process finished its steal meanwhile
      }
      return;
    }
    try {
      const current = this.readLock();
      if (current && current.holder?.token === stale.token && current.mtimeMs === stale.mtimeMs) unlinkSync(this.path);
    } catch {
      // the dead lock disappeared on its own
    } finally {
      try {
        unlinkSync(marker);
      } catch {
        // a waiter judged our marker stale and removed it
      }
    }
  }
}

export function describeHolder(holder: LockHolder | undefined): string {
  if (!holder) return 'another process';
  const me = currentProcessIdentity();
  const same = holder.pid === me.pid && holder.host === me.host && holder.startTime === me.startTime;
  const who = same ? 'this process' : `pid ${holder.pid} on ${holder.host}`;
  return holder.purpose ? `${who}: ${holder.purpose}` : who;
}

function createExclusive(path: string, holder: LockHolder): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'ENOENT') {
      mkdirSync(dirname(path), { recursive: true });
      return createExclusive(path, holder);
    }
    throw error;
  }
  try {
    writeSync(fd, JSON.stringify(holder));
  } finally {
    closeSync(fd);
  }
  return true;
}

/** A holder as written by `createExclusive`; anything else (empty, cut short, edited) is unreadable. */
function parseHolder(text: string): LockHolder | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const holder = value as Partial<LockHolder>;
  if (!Number.isInteger(holder.pid) || (holder.pid as number) <= 0) return undefined;
  if (typeof holder.host !== 'string' || typeof holder.token !== 'string') return undefined;
  return holder as LockHolder;
}
