import { ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { parseInput } from '../api-error.js';
import type { JournalEntry } from '../event-journal.js';
import { honoPath, ROUTES } from '../route-table.js';
import type { ServerContext } from '../server-context.js';

/** A client this far behind is cut off; it reconnects and gets the missed events replayed (or a reset). */
const MAX_QUEUED = 50_000;

function frame(id: string, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}

/**
 * `GET /api/events`: the journal as server-sent events. A client resuming with `Last-Event-ID`
 * gets what it missed from the ring, then the live events, with no gap and no duplicate: it is
 * subscribed before the replay is read, and live events at or below the replay's end are dropped.
 * An id-only message follows the replay when the client's position is behind the journal's (a
 * first connection, or a replay filtered to one session), so a client that saw no event yet still
 * has a position to resume from; it is never sent with an id the client already holds.
 */
export function eventRoutes(app: Hono, server: ServerContext): void {
  const spec = ROUTES.events;
  app.get(honoPath(spec.path), (context) => {
    const query = parseInput(spec.query, context.req.query(), 'query');
    const lastEventId = context.req.header('last-event-id') ?? query.lastEventId;
    const { journal } = server;
    const deltas = query.deltas ?? 'all';
    const wanted = (entry: JournalEntry): boolean =>
      (query.session === undefined || entry.sessionId === undefined || entry.sessionId === query.session) &&
      (entry.deltaOf === undefined || deltas === 'all' || entry.deltaOf === deltas);
    context.header('X-Accel-Buffering', 'no');
    // Node's response corks its socket at each write and uncorks it on the next tick, which comes only once
    // the microtask queue is empty: while a turn starts ten delegates (long chains of microtasks) events
    // sat written but unsent for 100 ms and more. Uncorked as soon as the write is through, they go now.
    const outgoing: unknown = (context.env as { outgoing?: unknown } | undefined)?.outgoing;
    const flush = (): void => {
      if (outgoing instanceof ServerResponse && outgoing.socket?.writableCorked) outgoing.socket.uncork();
    };
    return streamSSE(context, async (stream) => {
      const queue: string[] = [];
      let wake: (() => void) | undefined;
      let sentUpTo = 0;
      let overflowed = false;
      const push = (text: string): void => {
        queue.push(text);
        wake?.();
      };
      const unsubscribe = journal.subscribe((entry) => {
        if (entry.seq <= sentUpTo || !wanted(entry)) return;
        if (queue.length >= MAX_QUEUED) {
          overflowed = true;
          wake?.();
          return;
        }
        push(frame(journal.idOf(entry.seq), entry.event, entry.data));
      });
      // The closing listener is removed when this stream ends: one left per connection would pile up
      // on the server-wide signal with every browser reconnect.
      let onClosing: (() => void) | undefined;
      const ended = new Promise<void>((resolve) => {
        stream.onAbort(resolve);
        onClosing = resolve;
        if (server.closing.aborted) resolve();
        else server.closing.addEventListener('abort', onClosing, { once: true });
      });
      const heartbeat = setInterval(() => push(': ping\n\n'), server.heartbeatMs);
      try {
        let start = `retry: 1000\n\n`;
        // The last id this client holds (undefined: none yet): the id-only message is sent only when it
        // moves the client on, so no id ever reaches a client twice (the replay's last id, or a reset's).
        let clientAt: number | undefined;
        if (lastEventId !== undefined) {
          const replay = journal.since(lastEventId);
          if (replay.kind === 'reset') {
            start += frame(
              journal.idOf(journal.lastSeq),
              'reset',
              JSON.stringify({ reason: replay.reason, message: replay.message, seq: journal.lastSeq }),
            );
            clientAt = journal.lastSeq;
          } else {
            clientAt = replay.after;
            for (const entry of replay.entries) {
              if (!wanted(entry)) continue;
              start += frame(journal.idOf(entry.seq), entry.event, entry.data);
              clientAt = entry.seq;
            }
          }
        }
        sentUpTo = journal.lastSeq;
        if (clientAt !== sentUpTo) start += `id: ${journal.idOf(sentUpTo)}\n\n`;
        await stream.write(start);
        flush();
        let closed = false;
        void ended.then(() => {
          closed = true;
          wake?.();
        });
        while (!closed && !overflowed) {
          if (queue.length === 0) {
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
            continue;
          }
          await stream.write(queue.splice(0).join(''));
          flush();
        }
      } finally {
        clearInterval(heartbeat);
        unsubscribe();
        if (onClosing) server.closing.removeEventListener('abort', onClosing);
      }
    });
  });
}
