import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { ConfigError, LegionError, SessionNotFoundError } from '../errors.js';
import { readJsonFile, writeJsonAtomic, writeJsonIfAbsent } from '../storage/atomic-json.js';
import { isValidIdPart } from '../collective/participant-id.js';
import { LatestSessionIndex } from './latest-session-index.js';
import { Session, type SessionServices } from './Session.js';
import { SESSION_FORMAT_VERSION, SessionMetaSchema, type SessionMeta } from './session-meta.js';

/** Sessions kept open after use; beyond this many, the least recently used idle ones are closed. */
const OPEN_SESSIONS = 16;

/** Sessions of one workspace, under `.legion/sessions/<id>/`. */
export class SessionStore {
  private readonly open = new Map<string, Session>();
  private readonly services: SessionServices;
  private readonly index: LatestSessionIndex;

  constructor(services: SessionServices) {
    this.index = new LatestSessionIndex(services.paths);
    this.services = { ...services, activated: (meta) => this.index.advance(meta, this.index.read()) };
  }

  create(options: { title?: string } = {}): Session {
    const meta = newMeta(options);
    const trusted = this.index.read();
    writeJsonAtomic(this.services.paths.sessionFile(meta.id), meta);
    this.index.advance(meta, trusted);
    this.created(meta);
    return this.remember(new Session(meta, this.services));
  }

  get(id: string): Session {
    const cached = this.open.get(id);
    if (cached) {
      this.open.delete(id);
      this.open.set(id, cached);
      return cached;
    }
    assertSessionId(id);
    const file = this.services.paths.sessionFile(id);
    if (!existsSync(file)) throw new SessionNotFoundError(id);
    return this.remember(new Session(this.readMeta(id), this.services));
  }

  /**
   * Every session's metadata, most recently active first. A broken session (an
   * unreadable session.json, one whose id is not its folder's) is reported as a
   * warning and left out: it never stops the others from being used.
   */
  list(): SessionMeta[] {
    const dir = this.services.paths.sessionsDir;
    if (!existsSync(dir)) return [];
    const metas: SessionMeta[] = [];
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith('.')) continue;
      const file = this.services.paths.sessionFile(entry);
      if (!existsSync(file)) continue;
      try {
        assertSessionId(entry);
        metas.push(this.readMeta(entry));
      } catch (error) {
        this.services.events.emit('storage:warning', { path: this.services.paths.display(file), offset: 0, problem: `${(error as Error).message} This session is skipped.`, sessionId: entry });
      }
    }
    return metas.sort((a, b) => (a.lastActiveAt === b.lastActiveAt ? (a.id < b.id ? 1 : -1) : a.lastActiveAt < b.lastActiveAt ? 1 : -1));
  }

  /** The most recently active session: from the latest-session index when it is current, else by a scan that rewrites it. */
  latest(): Session | undefined {
    const hint = this.index.read();
    if (hint && isValidIdPart(hint.id) && existsSync(this.services.paths.sessionFile(hint.id))) {
      try {
        return this.get(hint.id);
      } catch {
        // A session that cannot be read is reported by the scan below.
      }
    }
    const newest = this.list()[0];
    if (!newest) return undefined;
    this.index.write(newest);
    return this.get(newest.id);
  }

  /**
   * The latest session, or a new one if there is none. Several processes that
   * start at once on a fresh workspace all end up in one first session: its id
   * is claimed by an exclusive create (the claim is removed once the session
   * exists), and the others open the claimed one.
   */
  resumeOrCreate(): Session {
    const latest = this.latest();
    if (latest) return latest;
    // Processes that find no session race to write this claim; all of them take the session it names.
    // It stays: removing it would let a process that looked a moment too early claim a second session.
    const claim = this.services.paths.firstSessionClaim;
    let meta: SessionMeta | undefined = newMeta({});
    if (!writeJsonIfAbsent(claim, meta)) meta = readClaim(claim) ?? newMeta({});
    if (writeJsonIfAbsent(this.services.paths.sessionFile(meta.id), meta)) {
      this.index.write(meta);
      this.created(meta);
    }
    return this.get(meta.id);
  }

  private created(meta: SessionMeta): void {
    this.services.events.emit('session:created', { sessionId: meta.id, ...(meta.title !== undefined ? { title: meta.title } : {}), createdAt: meta.createdAt });
  }

  /** The session file, checked: readable, valid, and naming the folder it is in. */
  private readMeta(id: string): SessionMeta {
    const file = this.services.paths.sessionFile(id);
    const display = this.services.paths.display(file);
    const meta = readJsonFile(file, SessionMetaSchema, { what: 'session file', displayPath: display });
    if (meta.id !== id) {
      throw new ConfigError({ file: display, field: 'id', problem: `says "${meta.id}" but the session's folder is "${id}"`, fix: `set "id" to "${id}", or move the folder` });
    }
    return meta;
  }

  close(): void {
    for (const session of this.open.values()) session.close();
    this.open.clear();
  }

  private remember(session: Session): Session {
    // A closed session still works (it reopens its logs on use), so releasing one a caller holds is safe.
    let excess = this.open.size - OPEN_SESSIONS + 1;
    for (const [id, open] of this.open) {
      if (excess <= 0) break;
      if (!open.idle) continue;
      open.close();
      this.open.delete(id);
      excess--;
    }
    this.open.set(session.id, session);
    return session;
  }
}


function newMeta(options: { title?: string }): SessionMeta {
  const now = new Date();
  // Sortable by time, unique across processes started in the same second.
  const id = `${now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${randomBytes(3).toString('hex')}`;
  return {
    version: SESSION_FORMAT_VERSION,
    id,
    createdAt: now.toISOString(),
    lastActiveAt: now.toISOString(),
    ...(options.title ? { title: options.title } : {}),
  };
}

/** Session ids name folders: the alphabet of participant ids, so `../../src` can never be one. */
export function assertSessionId(id: string): void {
  if (!isValidIdPart(id)) {
    throw new LegionError('invalid_session_id', `"${id}" is not a session id: use letters, digits, ".", "-" or single "_" (at most 64 characters), as "legion sessions" lists them.`, { id });
  }
}

function readClaim(path: string): SessionMeta | undefined {
  try {
    const parsed = SessionMetaSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
