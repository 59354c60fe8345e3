import { statSync } from 'node:fs';
import { z } from 'zod';
import { writeJsonAtomic } from '../fs/atomic-json.js';
import type { WorkspacePaths } from '../fs/workspace-paths.js';
import type { SessionMeta } from '../records/session-meta.js';
import { readRegularFileSync } from '../fs/regular-file.js';

const IndexSchema = z.object({
  id: z.string(),
  lastActiveAt: z.string(),
  /** The sessions folder's mtime (ns) when this was written: a session added or removed since changes it. */
  sessionsMtimeNs: z.string(),
});
type IndexEntry = z.infer<typeof IndexSchema>;

/**
 * Which session was active last, kept in `.legion/run/` so that finding the session
 * to resume does not read every `session.json` (that grows with the sessions kept).
 *
 * It is a cache, never the truth: it is trusted only while the sessions folder's
 * mtime is the one it recorded (a session created, copied in or deleted by anyone
 * changes it) and the session it names still exists; otherwise the caller scans
 * and rewrites it. Legion updates it whenever a session becomes the most recently
 * active. Two processes active at the same instant may leave either one as latest.
 */
export class LatestSessionIndex {
  constructor(private readonly paths: WorkspacePaths) {}

  /** The recorded latest session, if the record still describes the sessions folder. */
  read(): IndexEntry | undefined {
    const mtime = this.sessionsMtime();
    if (mtime === undefined) return undefined;
    let entry: IndexEntry;
    try {
      const parsed = IndexSchema.safeParse(JSON.parse(readRegularFileSync(this.paths.latestSessionIndex).toString('utf8')));
      if (!parsed.success) return undefined;
      entry = parsed.data;
    } catch {
      return undefined;
    }
    return entry.sessionsMtimeNs === mtime ? entry : undefined;
  }

  /** Records `meta` as the latest, describing the sessions folder as it is now. */
  write(meta: SessionMeta): void {
    const mtime = this.sessionsMtime();
    if (mtime === undefined) return;
    try {
      writeJsonAtomic(
        this.paths.latestSessionIndex,
        { id: meta.id, lastActiveAt: meta.lastActiveAt, sessionsMtimeNs: mtime },
        { durable: false },
      );
    } catch {
      // A read-only workspace still works: latest() falls back to a scan.
    }
  }

  /**
   * `meta` was just made active (or created). The record moves to it when the
   * record was valid before (`trusted`) and `meta` is at least as recent; an invalid
   * record is left for the next scan to rewrite.
   */
  advance(meta: SessionMeta, trusted: IndexEntry | undefined): void {
    if (!trusted) return;
    if (trusted.id !== meta.id && trusted.lastActiveAt > meta.lastActiveAt) return;
    this.write(meta);
  }

  private sessionsMtime(): string | undefined {
    try {
      return statSync(this.paths.sessionsDir, { bigint: true }).mtimeNs.toString();
    } catch {
      return undefined;
    }
  }
}
