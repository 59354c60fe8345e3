import type { EventBus } from '../events/EventBus.js';
import { errorMessage } from '../errors.js';
import type { SessionMeta } from '../storage/session-meta.js';
import type { Follower, FollowOptions } from './follow-session.js';

/** What `followWorkspace` needs of a Legion (a `Legion` is one): its sessions, its events, its per-session follower. */
export interface WorkspaceFollowPort {
  readonly sessions: { list(): Promise<SessionMeta[]> };
  readonly events: EventBus;
  follow(sessionId: string, options?: FollowOptions): Promise<Follower>;
}

export interface FollowWorkspaceOptions {
  /** How often the session list is read for sessions other processes created (default 1000 ms). */
  pollMs?: number | undefined;
  /** Passed to each session's follower (default 500 ms). */
  sessionPollMs?: number | undefined;
  /**
   * A session this follower had not seen appeared: `local` — this process created it (its
   * `session:created` event); `remote` — another process did, found in the session list.
   */
  onSession?: ((session: { sessionId: string; createdAt: string; title?: string | undefined }, origin: 'local' | 'remote') => void) | undefined;
}

/** Stops following every session when called. */
export type WorkspaceFollower = (() => void) & {
  /** The sessions followed now. */
  sessionIds(): string[];
  /** Reads the session list and every followed session's logs now; resolves once what it read is told. */
  check(): Promise<void>;
};

/**
 * Follows every session of the workspace (`legion.follow` for each), including those created
 * after it started, by this process or another: what other processes append anywhere becomes
 * events on this process's bus. Sessions there at the start are followed from their logs' end;
 * one another process creates later is followed from its beginning (nothing of it was shown yet).
 */
export async function followWorkspace(legion: WorkspaceFollowPort, options: FollowWorkspaceOptions = {}): Promise<WorkspaceFollower> {
  const followers = new Map<string, Follower | Promise<Follower | undefined>>();
  let closed = false;
  const sessionOptions = options.sessionPollMs !== undefined ? { pollMs: options.sessionPollMs } : {};

  const start = (meta: Pick<SessionMeta, 'id' | 'createdAt' | 'title'>, from: FollowOptions['from'], origin: 'local' | 'remote' | undefined): void => {
    if (followers.has(meta.id) || closed) return;
    const starting = legion.follow(meta.id, { ...sessionOptions, from }).then(
      (follower) => {
        if (closed) {
          follower();
          return undefined;
        }
        followers.set(meta.id, follower);
        return follower;
      },
      (error: unknown) => {
        // Removed meanwhile, or unreadable: the next poll tries again if it is still listed.
        followers.delete(meta.id);
        legion.events.emit('storage:warning', { path: `session ${meta.id}`, offset: 0, problem: `not followed: ${errorMessage(error)}`, sessionId: meta.id });
        return undefined;
      },
    );
    followers.set(meta.id, starting);
    if (origin) options.onSession?.({ sessionId: meta.id, createdAt: meta.createdAt, ...(meta.title !== undefined ? { title: meta.title } : {}) }, origin);
  };

  // Sessions this process creates: followed from the end at once (what it appends, it told already).
  const offCreated = legion.events.on('session:created', (event) => start({ id: event.sessionId, createdAt: event.createdAt, title: event.title }, 'end', 'local'));

  const readList = async (initial: boolean): Promise<void> => {
    let sessions: SessionMeta[];
    try {
      sessions = await legion.sessions.list();
    } catch {
      // The listing reports its own problems as storage warnings; the next poll tries again.
      return;
    }
    for (const meta of sessions) start(meta, initial ? 'end' : {}, initial ? undefined : 'remote');
  };

  await readList(true);
  await Promise.all(followers.values());
  let listing: Promise<void> | undefined;
  const poll = (): Promise<void> => (listing ??= readList(false).finally(() => (listing = undefined)));
  const timer = setInterval(() => void poll(), options.pollMs ?? 1000);
  // Following never keeps a process alive.
  timer.unref();

  const stop = (): void => {
    closed = true;
    clearInterval(timer);
    offCreated();
    for (const follower of followers.values()) void Promise.resolve(follower).then((stopIt) => stopIt?.());
    followers.clear();
  };
  const check = async (): Promise<void> => {
    await poll();
    const current = await Promise.all(followers.values());
    await Promise.all(current.map((follower) => follower?.check()));
  };
  return Object.assign(stop, { sessionIds: () => [...followers.keys()], check });
}
