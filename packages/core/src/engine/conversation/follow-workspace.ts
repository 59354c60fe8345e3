import type { EventBus } from '../../kernel/index.js';
import { errorMessage } from '../../kernel/index.js';
import type { SessionMeta } from '../../store/index.js';
import type { Follower, FollowOptions } from './follow-session.js';

/** What `followWorkspace` needs of a Legion (a `Legion` is one): its sessions, its events, its per-session follower. */
export interface WorkspaceFollowPort {
  readonly sessions: { list(): Promise<SessionMeta[]>; latestInfo(): Promise<SessionMeta | undefined> };
  readonly events: EventBus;
  follow(sessionId: string, options?: FollowOptions): Promise<Follower>;
}

export interface FollowWorkspaceOptions {
  /**
   * How often the latest session is looked up (default 1000 ms): a session another process creates,
   * or an idle one it sends a message in, becomes the latest and is followed from then on.
   */
  pollMs?: number | undefined;
  /**
   * How often the whole session list is read (default 30 s): it finds what the latest session's poll
   * can miss (two sessions becoming active within one poll). It reads every session's metadata, so
   * it is kept rare.
   */
  listEveryMs?: number | undefined;
  /**
   * A session whose last top-level message is older than this when the follower starts (default
   * 10 minutes) is not followed until it becomes active again (`ensure`, or a newer `lastActiveAt`):
   * a follower per session polls its logs, and a workspace keeps thousands of old sessions.
   */
  idleMs?: number | undefined;
  /** Passed to each session's follower (default 500 ms). */
  sessionPollMs?: number | undefined;
  /**
   * A session this follower had not seen appeared: `local` — this process created it (its
   * `session:created` event); `remote` — another process did, found in the session list.
   */
  onSession?:
    ((session: { sessionId: string; createdAt: string; title?: string | undefined }, origin: 'local' | 'remote') => void) | undefined;
}

/** Stops following every session when called. */
export type WorkspaceFollower = (() => void) & {
  /** The sessions followed now. */
  sessionIds(): string[];
  /**
   * Follows this session now if it was left idle (a UI opened it): what it wrote since it was
   * left is told as events, its older history is not. Resolves once it is followed.
   */
  ensure(sessionId: string): Promise<void>;
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

  /** Sessions not followed (idle), with the `lastActiveAt` seen and the time from which what they write is new. */
  const idle = new Map<string, { lastActiveAt: string; since: string }>();
  const idleMs = options.idleMs ?? 10 * 60_000;

  const start = (
    meta: Pick<SessionMeta, 'id' | 'createdAt' | 'title'>,
    from: FollowOptions['from'],
    origin: 'local' | 'remote' | undefined,
    since?: string,
  ): Promise<Follower | undefined> => {
    const existing = followers.get(meta.id);
    if (existing || closed) return Promise.resolve(existing);
    idle.delete(meta.id);
    const starting = legion.follow(meta.id, { ...sessionOptions, from, ...(since !== undefined ? { since } : {}) }).then(
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
        legion.events.emit('storage:warning', {
          path: `session ${meta.id}`,
          offset: 0,
          problem: `not followed: ${errorMessage(error)}`,
          sessionId: meta.id,
        });
        return undefined;
      },
    );
    followers.set(meta.id, starting);
    if (origin)
      options.onSession?.(
        { sessionId: meta.id, createdAt: meta.createdAt, ...(meta.title !== undefined ? { title: meta.title } : {}) },
        origin,
      );
    return starting;
  };

  /** A session seen in a poll: new (followed from its start), idle and active again (followed from when it was left), or known. */
  const seen = (meta: SessionMeta): void => {
    if (followers.has(meta.id)) return;
    const left = idle.get(meta.id);
    if (!left) void start(meta, {}, 'remote');
    else if (meta.lastActiveAt !== left.lastActiveAt) void start(meta, {}, undefined, left.since);
  };

  // Sessions this process creates: followed from the end at once (what it appends, it told already).
  const offCreated = legion.events.on(
    'session:created',
    (event) => void start({ id: event.sessionId, createdAt: event.createdAt, title: event.title }, 'end', 'local'),
  );

  const readList = async (): Promise<SessionMeta[] | undefined> => {
    try {
      return await legion.sessions.list();
    } catch {
      // The listing reports its own problems as storage warnings; the next poll tries again.
      return undefined;
    }
  };

  const startedAt = Date.now();
  const now = new Date(startedAt).toISOString();
  for (const meta of (await readList()) ?? []) {
    const lastActive = Date.parse(meta.lastActiveAt);
    if (Number.isFinite(lastActive) && startedAt - lastActive > idleMs) idle.set(meta.id, { lastActiveAt: meta.lastActiveAt, since: now });
    else void start(meta, 'end', undefined);
  }
  await Promise.all(followers.values());
  let lastListed = Date.now();
  const listEveryMs = options.listEveryMs ?? 30_000;
  let polling: Promise<void> | undefined;
  const readLatest = async (): Promise<void> => {
    if (Date.now() - lastListed >= listEveryMs) {
      lastListed = Date.now();
      for (const meta of (await readList()) ?? []) seen(meta);
      return;
    }
    let latest: SessionMeta | undefined;
    try {
      latest = await legion.sessions.latestInfo();
    } catch {
      return;
    }
    if (latest) seen(latest);
  };
  const poll = (): Promise<void> => (polling ??= readLatest().finally(() => (polling = undefined)));
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
  const ensure = async (sessionId: string): Promise<void> => {
    const left = idle.get(sessionId);
    if (!left) return;
    await start({ id: sessionId, createdAt: left.since }, {}, undefined, left.since);
  };
  const check = async (): Promise<void> => {
    lastListed = 0;
    await poll();
    const current = await Promise.all(followers.values());
    await Promise.all(current.map((follower) => follower?.check()));
  };
  return Object.assign(stop, { sessionIds: () => [...followers.keys()], ensure, check });
}
