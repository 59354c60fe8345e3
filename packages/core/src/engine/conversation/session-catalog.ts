import type { EventBus } from '../../kernel/index.js';
import { byMostRecent } from '../../store/index.js';
import type { SessionMeta } from '../../store/index.js';

/** Where the catalog reads sessions: the whole list once, then the latest one at each lookup. */
export interface SessionCatalogSource {
  list(): Promise<SessionMeta[]>;
  latestInfo(): Promise<SessionMeta | undefined>;
}

/**
 * Every session's metadata in memory, most recently active first, for lookups by id prefix at
 * each keystroke (completing `/resume <id>`): listing reads every session's record, some 70 ms
 * at 3,000 sessions, so it is read once and then kept up to date — by this process's
 * `session:created` / `session:updated` events, by its removals, and at each lookup by the
 * latest session (one small read, which catches a session another process created or used
 * last). What it may miss: another process's activity in a session that is not the latest
 * (its place in the order lags) and another process's removal (the id is still offered;
 * resuming it says it does not exist).
 */
export class SessionCatalog {
  private sessions: SessionMeta[] | undefined;
  private loading: Promise<SessionMeta[]> | undefined;

  constructor(
    private readonly source: SessionCatalogSource,
    events: Pick<EventBus, 'on'>,
  ) {
    events.on('session:created', (event) =>
      this.upsert({
        version: 1,
        id: event.sessionId,
        createdAt: event.createdAt,
        lastActiveAt: event.createdAt,
        ...(event.title !== undefined ? { title: event.title } : {}),
      }),
    );
    events.on('session:updated', (event) => {
      const known = this.sessions?.find((meta) => meta.id === event.sessionId);
      // Object.assign, not a spread plus properties: once per turn, and V8 (Node 20) keeps such objects through young GCs.
      if (known)
        this.upsert(
          Object.assign({}, known, { lastActiveAt: event.lastActiveAt }, event.title !== undefined ? { title: event.title } : {}),
        );
    });
  }

  /** Sessions whose id starts with `prefix`, most recently active first, at most `limit`. */
  async find(prefix: string, limit: number): Promise<SessionMeta[]> {
    const sessions = await this.load();
    const latest = await this.source.latestInfo();
    if (latest) this.upsert(latest);
    const found: SessionMeta[] = [];
    for (const meta of this.sessions ?? sessions) {
      if (found.length >= limit) break;
      if (meta.id.startsWith(prefix)) found.push(meta);
    }
    return found;
  }

  forget(id: string): void {
    if (this.sessions) this.sessions = this.sessions.filter((meta) => meta.id !== id);
  }

  private load(): Promise<SessionMeta[]> {
    this.loading ??= this.source.list().then(
      (sessions) => (this.sessions = [...sessions]),
      (error: unknown) => {
        // Tried again at the next lookup.
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }

  /** Puts `meta` where its last activity places it (before it is loaded, the list will have it). */
  private upsert(meta: SessionMeta): void {
    const sessions = this.sessions;
    if (!sessions) return;
    const at = sessions.findIndex((known) => known.id === meta.id);
    if (at !== -1) {
      const known = sessions[at]!;
      if (known.lastActiveAt === meta.lastActiveAt && known.title === meta.title) return;
      sessions.splice(at, 1);
    }
    const before = sessions.findIndex((known) => byMostRecent(meta, known) < 0);
    sessions.splice(before === -1 ? sessions.length : before, 0, meta);
  }
}
