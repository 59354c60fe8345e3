import type { Hono } from 'hono';
import { chooseSession, SessionNotFoundError, type Legion, type Message, type Session } from '@legion-collective/core';
import { parseConversationId, searchWords } from '@legion-collective/core/internal';
import { ApiError } from '../api-error.js';
import type { ServerContext } from '../server-context.js';
import { hitPlace } from '../search-snippets.js';
import { wireMessage, wireTotals } from '../session-views.js';
import type { SearchHit } from '../wire/search.js';
import type { SessionSummary } from '../wire/sessions.js';
import { jsonRoute } from './define-routes.js';

const DEFAULT_PAGE = 100;
const DEFAULT_SESSIONS_PAGE = 50;
const MAX_HITS = 100;

/** The session, or a 404 that says how to find the right id. */
export async function sessionOf(legion: Legion, id: string): Promise<Session> {
  try {
    return await legion.sessions.get(id);
  } catch (error) {
    if (error instanceof SessionNotFoundError || (error instanceof Error && 'code' in error && error.code === 'invalid_id')) {
      throw new ApiError(404, 'not_found', `No session "${id}". List them with GET /api/sessions.`);
    }
    // A name no session can have (`../etc`, a space): the caller's mistake, said as core says it, not a server failure.
    if (error instanceof Error && 'code' in error && error.code === 'invalid_session_id')
      throw new ApiError(400, 'bad_request', error.message);
    throw error;
  }
}

export function sessionRoutes(app: Hono, server: ServerContext): void {
  const { legion, views } = server;

  jsonRoute(app, server, 'sessions', async (_server, { query }) => {
    const page = await server.sessionPages.page({
      needle: query.q?.trim().toLowerCase(),
      limit: query.limit ?? DEFAULT_SESSIONS_PAGE,
      after: query.after,
    });
    // From core's session index: no log is read.
    const summaries = await Promise.all(
      page.entries.map(async (entry) => {
        try {
          return (await views.detail(entry)).summary;
        } catch (error) {
          // Another process removed it since the catalog read it: not listed (the page is one shorter).
          if (error instanceof SessionNotFoundError) return undefined;
          throw error;
        }
      }),
    );
    const sessions = summaries.filter((summary): summary is SessionSummary => summary !== undefined);
    return page.next !== undefined ? { sessions, next: page.next } : { sessions };
  });

  jsonRoute(app, server, 'createSession', async (_server, { body }) => {
    const session = await chooseSession(legion.sessions, { newSession: true, ...(body.title !== undefined ? { title: body.title } : {}) });
    return { id: session.id };
  });

  jsonRoute(app, server, 'session', async (_server, { params }) => {
    const session = await sessionOf(legion, params['id']!);
    await server.ensureFollowed(session.id);
    const detail = await views.detail(session.info);
    return { session: detail.summary, conversations: detail.conversations };
  });

  jsonRoute(app, server, 'stream', async (_server, { params }) => {
    const session = await sessionOf(legion, params['id']!);
    const conversationId = params['cid']!;
    // Read before anything is awaited: the text and its position are of one moment.
    const seq = server.journal.lastSeq;
    const streaming = server.streams.get(session.id, conversationId);
    return { ...(streaming ? { participantId: streaming.participantId, text: streaming.text } : { text: '' }), seq };
  });

  jsonRoute(app, server, 'messages', async (_server, { params, query }) => {
    const session = await sessionOf(legion, params['id']!);
    const conversationId = params['cid']!;
    let key;
    try {
      key = parseConversationId(conversationId);
    } catch {
      throw new ApiError(
        404,
        'not_found',
        `"${conversationId}" is not a conversation id (<initiator>__<responder>[__<name>]). List a session's conversations with GET /api/sessions/${session.id}.`,
      );
    }
    const known = (await session.listConversations()).some((ref) => ref.conversationId === conversationId);
    if (!known)
      throw new ApiError(
        404,
        'not_found',
        `Session ${session.id} has no conversation "${conversationId}". List its conversations with GET /api/sessions/${session.id}.`,
      );
    const conversation = session.conversation(key);
    const limit = query.limit ?? DEFAULT_PAGE;
    let messages: Message[];
    if (query.before === undefined) {
      // One more than asked: it tells whether older ones exist.
      messages = await conversation.recent(limit + 1);
    } else {
      // Read further back from the end until the message is found (pages go backwards from the newest).
      let count = limit * 2 + 1;
      for (;;) {
        const read = await conversation.recent(count);
        const index = read.findIndex((message) => message.id === query.before);
        if (index >= 0) {
          messages = read.slice(Math.max(0, index - limit - 1), index);
          break;
        }
        if (read.length < count)
          throw new ApiError(404, 'not_found', `Conversation ${conversationId} has no message "${query.before}" to page before.`);
        count *= 4;
      }
    }
    const more = messages.length > limit;
    const page = more ? messages.slice(-limit) : messages;
    return { messages: page.map((message) => wireMessage(key, message)), more };
  });

  jsonRoute(app, server, 'usage', async (_server, { params }) => {
    const session = await sessionOf(legion, params['id']!);
    const usage = await server.usage.read(session);
    return {
      total: wireTotals(usage.total),
      participants: Object.entries(usage.byParticipant).map(([id, totals]) => ({
        id,
        own: wireTotals(totals.own),
        withDelegates: wireTotals(totals.withDelegates),
      })),
      conversations: Object.entries(usage.byConversation).map(([id, totals]) => ({ id, totals: wireTotals(totals) })),
    };
  });

  jsonRoute(app, server, 'conflicts', async (_server, { params }) => {
    const session = await sessionOf(legion, params['id']!);
    return { conflicts: (await session.claimConflicts()).map(({ kind: _kind, version: _version, ...view }) => view) };
  });

  jsonRoute(app, server, 'search', async (_server, { query }) => {
    // Sessions most recently active first: core's index skips, without reading their logs, those
    // that lack a word searched for, and stops once older sessions can hold no newer hit.
    const sessions = query.session !== undefined ? [(await sessionOf(legion, query.session)).info] : await server.sessionPages.ordered();
    const found = await legion.sessions.searchMessages(query.q, { sessions, limit: MAX_HITS });
    const words = searchWords(query.q);
    const hits: SearchHit[] = found.map(({ sessionId, conversationId, message }) => {
      const place = hitPlace(message, words);
      const key = parseConversationId(conversationId);
      return {
        sessionId,
        conversationId,
        initiator: key.initiator,
        responder: key.responder,
        ...(key.name !== undefined ? { conversationName: key.name } : {}),
        messageId: message.id,
        author: wireMessage(key, message).author,
        at: message.at,
        ...(place.kind !== 'text' ? { place: place.kind } : {}),
        ...(place.tool !== undefined ? { tool: place.tool } : {}),
        snippet: place.snippet,
      };
    });
    return { hits };
  });
}
