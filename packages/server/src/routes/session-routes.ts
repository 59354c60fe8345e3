import type { Hono } from 'hono';
import { chooseSession, SessionNotFoundError, textOf, type Legion, type Message, type Session } from '@legion-collective/core';
import { parseConversationId } from '@legion-collective/core/internal';
import { ApiError } from '../api-error.js';
import type { ServerContext } from '../server-context.js';
import { wireMessage, wireTotals } from '../session-views.js';
import type { SearchHit } from '../wire/search.js';
import type { SessionSummary } from '../wire/sessions.js';
import { jsonRoute } from './define-routes.js';

const DEFAULT_PAGE = 100;
// Counting a session never listed before reads its logs: 50 keep a cold page within issue 30's 50 ms.
const DEFAULT_SESSIONS_PAGE = 50;
const MAX_HITS = 100;
const SNIPPET_CONTEXT = 60;

/** The session, or a 404 that says how to find the right id. */
export async function sessionOf(legion: Legion, id: string): Promise<Session> {
  try {
    return await legion.sessions.get(id);
  } catch (error) {
    if (error instanceof SessionNotFoundError || (error instanceof Error && 'code' in error && error.code === 'invalid_id')) {
      throw new ApiError(404, 'not_found', `No session "${id}". List them with GET /api/sessions.`);
    }
    throw error;
  }
}

/** The text of a message a search looks in: its text and its tool calls' inputs and results. */
function searchableText(message: Message): string {
  return message.content
    .map((block) => (block.type === 'text' ? block.text : block.type === 'tool_use' ? JSON.stringify(block.input) : block.content))
    .join('\n');
}

function snippet(text: string, at: number, length: number): string {
  const start = Math.max(0, at - SNIPPET_CONTEXT);
  const end = Math.min(text.length, at + length + SNIPPET_CONTEXT);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
}

export function sessionRoutes(app: Hono, server: ServerContext): void {
  const { legion, views } = server;

  jsonRoute(app, server, 'sessions', async (_server, { query }) => {
    const page = await server.sessionPages.page({
      needle: query.q?.trim().toLowerCase(),
      limit: query.limit ?? DEFAULT_SESSIONS_PAGE,
      after: query.after,
    });
    // Counted only for the page (and kept until the session changes).
    const summaries = await Promise.all(
      page.entries.map(async (entry) => {
        try {
          return (await views.detail(await legion.sessions.get(entry.id))).summary;
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
    const detail = await views.detail(session);
    return { session: detail.summary, conversations: detail.conversations };
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

  jsonRoute(app, server, 'search', async (_server, { query }) => {
    const needle = query.q.toLowerCase();
    const newestFirst = (a: SearchHit, b: SearchHit): number => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0);
    // Sessions most recently active first, one at a time: once the newest hits are found, a session
    // last active before the oldest of them has none newer, and the rest are not read.
    const entries = query.session !== undefined ? [(await sessionOf(legion, query.session)).info] : await server.sessionPages.ordered();
    const hits: SearchHit[] = [];
    for (const entry of entries) {
      if (hits.length >= MAX_HITS && entry.lastActiveAt < hits[MAX_HITS - 1]!.at) break;
      const session = await legion.sessions.get(entry.id);
      for (const ref of await session.listConversations()) {
        for (const message of await session.conversation(ref).recent(Number.MAX_SAFE_INTEGER)) {
          const text = message.content.some((block) => block.type !== 'text') ? searchableText(message) : textOf(message);
          const at = text.toLowerCase().indexOf(needle);
          if (at < 0) continue;
          hits.push({
            sessionId: session.id,
            conversationId: ref.conversationId,
            messageId: message.id,
            author: wireMessage(ref, message).author,
            at: message.at,
            snippet: snippet(text, at, needle.length),
          });
        }
      }
      hits.sort(newestFirst);
      hits.splice(MAX_HITS);
    }
    return { hits };
  });
}
