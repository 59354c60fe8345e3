import { LegionError, SessionNotFoundError } from '../../kernel/index.js';
import type { EventBus } from '../../kernel/index.js';
import type { ConversationLogs, Lease, MessageHit, SessionRecords, SessionTally, StorageWarning, SessionMeta } from '../../store/index.js';
import { OpenHandles, searchWords } from '../../store/index.js';
import { Session, type SessionServices } from './Session.js';
import { SessionCatalog } from './session-catalog.js';

/** Sessions kept open after use; beyond this many, the least recently used idle ones are closed. */
const OPEN_SESSIONS = 16;

/**
 * A workspace's sessions: their records are the backend's (`backend.sessions`),
 * the `Session` objects this process has open are kept here, one per id.
 */
export class SessionStore {
  private readonly open = new OpenHandles<Session>(OPEN_SESSIONS);

  constructor(
    private readonly services: SessionServices,
    /** The conversation locks as leases: what `remove` checks that no running turn holds. */
    private readonly leases: Pick<ConversationLogs, 'list' | 'acquire'>,
  ) {}

  private get records(): SessionRecords {
    return this.services.backend.sessions;
  }

  async create(options: { title?: string } = {}): Promise<Session> {
    const meta = await this.records.create(options);
    this.created(meta);
    return this.adopt(meta);
  }

  async get(id: string): Promise<Session> {
    const cached = this.cached(id);
    if (cached) return cached;
    const meta = await this.records.get(id);
    if (!meta) throw new SessionNotFoundError(id);
    return this.adopt(meta);
  }

  /**
   * Every session's metadata, most recently active first. A broken session (an
   * unreadable session.json, one whose id is not its folder's) is reported as a
   * warning and left out: it never stops the others from being used.
   */
  async list(): Promise<SessionMeta[]> {
    const listing = await this.records.list();
    for (const warning of listing.warnings) this.warn(warning);
    return listing.sessions;
  }

  private catalog: SessionCatalog | undefined;

  /**
   * Sessions whose id starts with `prefix`, most recently active first (at most `limit`, default
   * 20), for completion at every keystroke: the first call lists every session, later ones read
   * only the latest session's record (`session-catalog.ts` says what they may miss). A UI calls
   * `find('', { limit: 0 })` early, so that its first completion is as quick as the rest.
   */
  find(prefix: string, options: { limit?: number } = {}): Promise<SessionMeta[]> {
    this.catalog ??= new SessionCatalog({ list: () => this.list(), latestInfo: () => this.latestInfo() }, this.services.events);
    return this.catalog.find(prefix, options.limit ?? 20);
  }

  /**
   * What a list of sessions shows of one: its conversations with their message counts and newest
   * message's time, and its usage totals, from the backend's index (no log is read). Throws
   * `SessionNotFoundError` when there is no such session.
   */
  tally(id: string): Promise<SessionTally> {
    return this.services.backend.index.tally(id);
  }

  /**
   * Messages that have every word of `text` (whole words, any case), newest first, at most
   * `options.limit`, in `options.sessions` (most recently active first, as `find` lists them): the
   * backend's index skips the sessions that have no such word without reading their logs.
   */
  searchMessages(
    text: string,
    options: { sessions: readonly { id: string; lastActiveAt: string }[]; limit: number },
  ): Promise<MessageHit[]> {
    return this.services.backend.index.search({ words: searchWords(text), sessions: options.sessions, limit: options.limit });
  }

  /** The most recently active session (the backend keeps it cheap to find). */
  async latest(): Promise<Session | undefined> {
    const meta = await this.records.latest();
    return meta ? this.adopt(meta) : undefined;
  }

  /** The most recently active session's metadata as stored now (another process may have moved it on), without opening it. */
  async latestInfo(): Promise<SessionMeta | undefined> {
    return this.records.latest();
  }

  /**
   * The latest session, or a new one if there is none. Several processes that
   * start at once on a fresh workspace all end up in one first session (the
   * backend's `latestOrCreate` settles the race).
   */
  async resumeOrCreate(): Promise<Session> {
    const { session, created } = await this.records.latestOrCreate();
    if (created) this.created(session);
    return this.adopt(session);
  }

  /**
   * Deletes a session and everything it stores. It refuses, naming the holder, while
   * any of its conversations is locked by a running turn (in any process): it takes
   * every conversation's lease first and keeps them until the session is gone, so no
   * turn can start in it meanwhile.
   */
  async remove(id: string): Promise<void> {
    const { leases } = this;
    const owner = `remove session ${id} (pid ${process.pid})`;
    if (!(await this.records.get(id))) throw new SessionNotFoundError(id);
    const held: Lease[] = [];
    try {
      for (const conversationId of await leases.list(id)) {
        const taken = await leases.acquire({ sessionId: id, conversationId }, owner, { ttlMs: 60_000 });
        if (!taken.acquired) {
          throw new LegionError(
            'session_busy',
            `Session ${id} is in use: conversation ${conversationId} is held by ${taken.holder?.owner ?? 'another process'}. Wait for that turn to end (or stop it), then remove the session.`,
            { sessionId: id, conversationId },
          );
        }
        held.push(taken.lease);
      }
      this.open.delete(id);
      await this.records.remove(id);
      this.catalog?.forget(id);
    } finally {
      for (const lease of held) await lease.release();
    }
  }

  /**
   * The open `Session` for this one's id: the one kept here, or this one, kept
   * again (after it was released as idle, a caller that still holds it uses it).
   */
  held(session: Session): Session {
    const cached = this.cached(session.id);
    if (cached) return cached;
    return this.remember(session);
  }

  /**
   * Closes the session kept open for `id` when no turn of this process runs in it. For a caller
   * that only read it (a server reading what waits on a person at start): a session kept open
   * here is taken as existing, so one another process removes later would still be listed.
   */
  release(id: string): void {
    const session = this.cached(id);
    if (session?.idle) this.open.delete(id);
  }

  /** Reports a session a backend read had to skip, as a `storage:warning` of that session. */
  warn(warning: StorageWarning): void {
    emitStorageWarning(this.services.events, warning);
  }

  close(): void {
    this.open.closeAll();
  }

  private created(meta: SessionMeta): void {
    this.services.events.emit('session:created', {
      sessionId: meta.id,
      ...(meta.title !== undefined ? { title: meta.title } : {}),
      createdAt: meta.createdAt,
    });
  }

  private cached(id: string): Session | undefined {
    return this.open.get(id);
  }

  /** One `Session` per id in this process: callers that looked the same session up at once get the same object. */
  private adopt(meta: SessionMeta): Session {
    return this.cached(meta.id) ?? this.remember(new Session(meta, this.services));
  }

  private remember(session: Session): Session {
    // A closed session still works (it reopens its logs on use), so releasing one a caller holds is safe.
    return this.open.add(session.id, session);
  }
}

/** A problem the storage found (a broken line, a session it could not read), as the `storage:warning` event. */
export function emitStorageWarning(events: EventBus, warning: StorageWarning): void {
  events.emit('storage:warning', {
    path: warning.source,
    offset: warning.offset,
    problem: warning.problem,
    ...(warning.sessionId !== undefined ? { sessionId: warning.sessionId } : {}),
  });
}
