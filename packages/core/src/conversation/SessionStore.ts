import { existsSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { SessionNotFoundError } from '../errors.js';
import { readJsonFile, writeJsonAtomic } from '../storage/atomic-json.js';
import { Session, type SessionServices } from './Session.js';
import { SESSION_FORMAT_VERSION, SessionMetaSchema, type SessionMeta } from './session-meta.js';

/** Sessions of one workspace, under `.legion/sessions/<id>/`. */
export class SessionStore {
  private readonly open = new Map<string, Session>();

  constructor(private readonly services: SessionServices) {}

  create(options: { title?: string } = {}): Session {
    const now = new Date();
    // Sortable by time, unique across processes started in the same second.
    const id = `${now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${randomBytes(3).toString('hex')}`;
    const meta: SessionMeta = {
      version: SESSION_FORMAT_VERSION,
      id,
      createdAt: now.toISOString(),
      lastActiveAt: now.toISOString(),
      ...(options.title ? { title: options.title } : {}),
    };
    writeJsonAtomic(this.services.paths.sessionFile(id), meta);
    return this.remember(new Session(meta, this.services));
  }

  get(id: string): Session {
    const cached = this.open.get(id);
    if (cached) return cached;
    const file = this.services.paths.sessionFile(id);
    if (!existsSync(file)) throw new SessionNotFoundError(id);
    const meta = readJsonFile(file, SessionMetaSchema, { what: 'session file', displayPath: this.services.paths.display(file) });
    return this.remember(new Session(meta, this.services));
  }

  /** Every session's metadata, most recently active first. Unreadable ones are skipped. */
  list(): SessionMeta[] {
    const dir = this.services.paths.sessionsDir;
    if (!existsSync(dir)) return [];
    const metas: SessionMeta[] = [];
    for (const entry of readdirSync(dir)) {
      const file = this.services.paths.sessionFile(entry);
      if (!existsSync(file)) continue;
      try {
        metas.push(readJsonFile(file, SessionMetaSchema, { what: 'session file', displayPath: this.services.paths.display(file) }));
      } catch (error) {
        this.services.events.emit('storage:warning', { path: this.services.paths.display(file), offset: 0, problem: (error as Error).message });
      }
    }
    return metas.sort((a, b) => (a.lastActiveAt === b.lastActiveAt ? (a.id < b.id ? 1 : -1) : a.lastActiveAt < b.lastActiveAt ? 1 : -1));
  }

  latest(): Session | undefined {
    const newest = this.list()[0];
    return newest ? this.get(newest.id) : undefined;
  }

  /** The latest session, or a new one if there is none. */
  resumeOrCreate(): Session {
    return this.latest() ?? this.create();
  }

  close(): void {
    for (const session of this.open.values()) session.close();
    this.open.clear();
  }

  private remember(session: Session): Session {
    this.open.set(session.id, session);
    return session;
  }
}

