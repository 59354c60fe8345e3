import type { AddressInfo } from 'node:net';
import { followWorkspace, type Legion, type LegionEvent } from '@legion-collective/core';
import { newAccessToken } from './access-token.js';
import { bodyLimitsFor } from './body-limit.js';
import { createApp } from './create-app.js';
import { serveLocally } from './node-serve.js';
import { SessionPages } from './session-pages.js';
import { EventJournal, type JournalLimits } from './event-journal.js';
import { feedJournal } from './event-feed.js';
import { seedStates } from './seed-states.js';
import type { ServerContext } from './server-context.js';
import { ServerTurns } from './server-turns.js';
import { SessionViews } from './session-views.js';
import { UsageViews } from './usage-views.js';
import { SERVER_VERSION } from './version.js';
import { WebUser } from './web-user.js';

export interface StartServerOptions {
  legion: Legion;
  /** Default 0: a free port. */
  port?: number | undefined;
  /** Default `127.0.0.1`. Anything else is reachable from other machines: the caller warns. */
  host?: string | undefined;
  /** Default: 32 random bytes, base64url. */
  token?: string | undefined;
  /** The browser app's built files (`index.html` + `assets/`); without it `/` says the app was not built. */
  staticDir?: string | undefined;
  /** Shown by `/api/workspace` (default: this package's version). */
  version?: string | undefined;
  /** The comment heartbeat of event streams (default 15 s). */
  heartbeatMs?: number | undefined;
  /** The event ring kept for clients that reconnect (default 20,000 events or 64 MB). */
  journal?: JournalLimits | undefined;
  /** How often the session list is read for sessions other processes create (default 1 s). */
  followPollMs?: number | undefined;
  /** The environment whose secrets the config view redacts (default `process.env`). */
  env?: NodeJS.ProcessEnv | undefined;
  /**
   * Origins that may show the app in a frame (CSP `frame-ancestors`), for an editor's webview;
   * default none: no site can frame the Approve buttons.
   */
  frameAncestors?: readonly string[] | undefined;
}

export interface RunningServer {
  url: string;
  port: number;
  host: string;
  token: string;
  /** The API routes the app serves (`GET /api/workspace`, …), Hono's path form: what the OpenAPI document must list. */
  routes: Array<{ method: string; path: string }>;
  /** Aborted when `close()` begins: work tied to the server's life listens to it. */
  closing: AbortSignal;
  /** Ends event streams, stops the server's turns (their aborts are logged), stops following; leaves the Legion open. */
  close(): Promise<void>;
}

/**
 * Starts `legion serve`'s HTTP server over one Legion: the browser is attached as the user
 * surface `web`, every session of the workspace is followed (other processes' work shows live),
 * and Legion's events stream to browsers.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { legion } = options;
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? newAccessToken();
  const journal = new EventJournal(options.journal);
  const feed = feedJournal(legion, journal);
  await seedStates(legion, feed.states);
  const closing = new AbortController();
  const turns = new ServerTurns(legion);
  const questionSessions = new Map<string, string>();
  const offQuestions = legion.events.on('question:asked', (event) => {
    questionSessions.set(event.questionId, event.sessionId);
    if (questionSessions.size > 10_000) questionSessions.delete(questionSessions.keys().next().value!);
  });
  const webUser = new WebUser(legion, (question, change, detail) => {
    // Questions core recorded have their own events; those only this server holds are told here, in the same words.
    if (question.durable) return;
    const base = {
      sessionId: question.sessionId,
      conversationId: question.conversationId,
      questionId: question.id,
      user: question.user,
      from: question.from,
    };
    const event: LegionEvent =
      change === 'asked'
        ? { type: 'question:asked', seq: 0, ...base, chain: question.chain, text: question.text, at: question.askedAt }
        : change === 'answered'
          ? { type: 'question:answered', seq: 0, ...base, text: detail ?? '', answeredBy: question.user, medium: 'web' }
          : { type: 'question:withdrawn', seq: 0, ...base, reason: detail ?? 'withdrawn' };
    const { seq: _unnumbered, ...payload } = event;
    journal.append('legion', payload, question.sessionId);
    // Not on Legion's bus, so the states hear it here: else the asker would show its `communicate` call, not that it waits for you.
    feed.states.observe(event);
  });
  const views = new SessionViews(legion, (sessionId, conversationId) => turns.busy(sessionId, conversationId));
  const usage = new UsageViews(legion);
  const sessionPages = new SessionPages(legion);
  const server: ServerContext = {
    legion,
    version: options.version ?? SERVER_VERSION,
    bodyLimits: bodyLimitsFor(legion.config.limits.maxMessageBytes),
    journal,
    states: feed.states,
    streams: feed.streams,
    webUser,
    turns,
    views,
    sessionPages,
    usage,
    questionSessions,
    ensureFollowed: (sessionId) => following.ensure(sessionId),
    heartbeatMs: options.heartbeatMs ?? 15_000,
    closing: closing.signal,
  };
  sessionPages.warm();
  const following = await followWorkspace(legion, {
    ...(options.followPollMs !== undefined ? { pollMs: options.followPollMs, sessionPollMs: Math.min(500, options.followPollMs) } : {}),
    onSession: (session, origin) => {
      if (origin === 'remote') sessionPages.noteRemote(session);
      feed.announceSession(session);
    },
  });

  let port = options.port ?? 0;
  const app = createApp(server, {
    token,
    host,
    port: () => port,
    staticDir: options.staticDir,
    env: options.env ?? process.env,
    frameAncestors: options.frameAncestors,
  });
  const listening = await serveLocally({ fetch: app.fetch, port, hostname: host });
  port = (listening.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}/`,
    port,
    host,
    token,
    closing: closing.signal,
    routes: app.routes
      .filter((route) => route.path.startsWith('/api/') && route.method !== 'ALL')
      .map((route) => ({ method: route.method, path: route.path })),
    close: () =>
      (closed ??= (async () => {
        closing.abort();
        following();
        // Turns first: one waiting on the browser is aborted as a stopped turn, not told that the user left.
        await turns.close();
        webUser.close();
        offQuestions();
        usage.close();
        feed.stop();
        await new Promise<void>((resolve) => {
          listening.close(() => resolve());
          // Event streams are long requests: end them rather than wait for browsers to leave.
          if ('closeAllConnections' in listening) listening.closeAllConnections();
        });
      })()),
  };
}
