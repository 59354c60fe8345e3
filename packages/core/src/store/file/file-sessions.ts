import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, SessionNotFoundError } from '../../kernel/index.js';
import { LatestSessionIndex } from './latest-session-index.js';
import { SessionMetaSchema, type SessionMeta } from '../records/session-meta.js';
import { readJsonFile, writeJsonAtomic, writeJsonIfAbsent } from '../fs/atomic-json.js';
import type { WorkspacePaths } from '../fs/workspace-paths.js';
import { applySessionChanges, byMostRecent, newSessionMeta } from '../new-session-meta.js';
import { assertSessionName, isNamePart } from '../record-names.js';
import type { SessionListing, SessionRecords, StorageWarning } from '../session-backend.js';
import { readRegularFileSync } from '../fs/regular-file.js';

/** How many session records a listing reads before it lets the event loop run (a few milliseconds' worth). */
const LIST_READS_BETWEEN_YIELDS = 25;

/** `sessions/<id>/session.json`, with the latest-session index in `run/` and the first-session claim. */
export class FileSessions implements SessionRecords {
  private readonly index: LatestSessionIndex;

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly onWarning: (warning: StorageWarning) => void = () => {},
  ) {
    this.index = new LatestSessionIndex(paths);
  }

  async create(options: { title?: string | undefined } = {}): Promise<SessionMeta> {
    const meta = newSessionMeta(options);
    const trusted = this.index.read();
    writeJsonAtomic(this.paths.sessionFile(meta.id), meta);
    this.index.advance(meta, trusted);
    return meta;
  }

  async restore(meta: SessionMeta): Promise<boolean> {
    assertSessionName(meta.id);
    const trusted = this.index.read();
    if (!writeJsonIfAbsent(this.paths.sessionFile(meta.id), meta)) return false;
    this.index.advance(meta, trusted);
    return true;
  }

  async latestOrCreate(): Promise<{ session: SessionMeta; created: boolean }> {
    const latest = await this.latest();
    if (latest) return { session: latest, created: false };
    // Processes that find no session race to write this claim; all of them take the session it names.
    // It stays: removing it would let a process that looked a moment too early claim a second session.
    const claim = this.paths.firstSessionClaim;
    let meta: SessionMeta | undefined = newSessionMeta();
    if (!writeJsonIfAbsent(claim, meta)) meta = readClaim(claim) ?? newSessionMeta();
    const created = writeJsonIfAbsent(this.paths.sessionFile(meta.id), meta);
    if (created) this.index.write(meta);
    return { session: this.readMeta(meta.id), created };
  }

  async get(id: string): Promise<SessionMeta | undefined> {
    assertSessionName(id);
    if (!existsSync(this.paths.sessionFile(id))) return undefined;
    return this.readMeta(id);
  }

  async update(id: string, changes: { lastActiveAt?: string | undefined; title?: string | undefined }): Promise<SessionMeta> {
    const current = await this.get(id);
    if (!current) throw new SessionNotFoundError(id);
    const next = applySessionChanges(current, changes);
    // Only "last active" changing is not worth an fsync on every message; a new title is.
    writeJsonAtomic(this.paths.sessionFile(id), next, { durable: changes.title !== undefined });
    if (changes.lastActiveAt !== undefined) this.index.advance(next, this.index.read());
    return next;
  }

  async list(): Promise<SessionListing> {
    const dir = this.paths.sessionsDir;
    const listing: SessionListing = { sessions: [], warnings: [] };
    if (!existsSync(dir)) return listing;
    for (const [index, entry] of readdirSync(dir).entries()) {
      // The reads are synchronous: a REPL listing 1,000 sessions in the background (for /resume's
      // completion) held its event loop for some 150 ms, and the keys typed meanwhile waited.
      if (index > 0 && index % LIST_READS_BETWEEN_YIELDS === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      if (entry.startsWith('.')) continue;
      const file = this.paths.sessionFile(entry);
      if (!existsSync(file)) continue;
      try {
        assertSessionName(entry);
        listing.sessions.push(this.readMeta(entry));
      } catch (error) {
        const warning: StorageWarning = {
          source: this.paths.display(file),
          offset: 0,
          problem: `${(error as Error).message} This session is skipped.`,
          sessionId: entry,
        };
        listing.warnings.push(warning);
      }
    }
    listing.sessions.sort(byMostRecent);
    return listing;
  }

  async latest(): Promise<SessionMeta | undefined> {
    const hint = this.index.read();
    if (hint && isNamePart(hint.id) && existsSync(this.paths.sessionFile(hint.id))) {
      try {
        return this.readMeta(hint.id);
      } catch {
        // A session that cannot be read is reported by the scan below.
      }
    }
    const listing = await this.list();
    for (const warning of listing.warnings) this.onWarning(warning);
    const newest = listing.sessions[0];
    if (newest) this.index.write(newest);
    return newest;
  }

  async remove(id: string): Promise<boolean> {
    assertSessionName(id);
    const dir = this.paths.sessionDir(id);
    if (!existsSync(dir)) return false;
    // One rename takes the whole session out of sight at once (list() skips dot entries, and the
    // latest-session index sees the folder change); the slow recursive delete happens out of sight.
    const doomed = join(this.paths.sessionsDir, `.removed-${id}-${randomUUID()}`);
    try {
      renameSync(dir, doomed);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    // The first-session claim must not bring a removed session back under its old id.
    if (readClaim(this.paths.firstSessionClaim)?.id === id) rmSync(this.paths.firstSessionClaim, { force: true });
    rmSync(doomed, { recursive: true, force: true });
    return true;
  }

  /** The session file, checked: readable, valid, and naming the folder it is in. */
  private readMeta(id: string): SessionMeta {
    const file = this.paths.sessionFile(id);
    const display = this.paths.display(file);
    const meta = readJsonFile(file, SessionMetaSchema, { what: 'session file', displayPath: display });
    if (meta.id !== id) {
      throw new ConfigError({
        file: display,
        field: 'id',
        problem: `says "${meta.id}" but the session's folder is "${id}"`,
        fix: `set "id" to "${id}", or move the folder`,
      });
    }
    return meta;
  }
}

function readClaim(path: string): SessionMeta | undefined {
  try {
    const parsed = SessionMetaSchema.safeParse(JSON.parse(readRegularFileSync(path).toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
