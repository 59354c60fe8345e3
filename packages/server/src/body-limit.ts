import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from './api-error.js';

/** What a body may weigh at the door, by the kind of route (`RouteSpec.body`'s `bodyKind`). */
export interface BodyLimits {
  /** Routes that carry a message's text (send, answer a question): room for any message within `limits.maxMessageBytes`. */
  message: number;
  /** Every other body (a title, approval decisions, a conversation id). */
  small: number;
}

/** Bodies of routes that carry no message: ids, decisions, a title, a reason — far below this. */
const SMALL_BODY_BYTES = 64 * 1024;

/**
 * The door's limits from the message limit. JSON may spend up to six bytes on one byte of text
 * (`\u0000`), so a message at the limit fits whatever its characters; the text's own size is
 * then checked exactly (a 400 naming the size and the limit) before anything runs.
 */
export function bodyLimitsFor(maxMessageBytes: number): BodyLimits {
  return { message: maxMessageBytes * 6 + SMALL_BODY_BYTES, small: SMALL_BODY_BYTES };
}

/** A size as people read it, and exactly when that rounds: `6.1 MiB (6357000 bytes)`, `900 bytes`. */
export function formatLimit(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  return `${bytes >= 1_048_576 ? `${(bytes / 1_048_576).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`} (${bytes} bytes)`;
}

/**
 * Refuses a body over `maxBytes` with 413 before it is parsed: by its `Content-Length`, without
 * reading it, or, for a body streamed without one (chunked), as soon as more than the limit has
 * arrived. Hono's own middleware does the counting; what is read is never more than the limit.
 */
export function limitBody(maxBytes: number, refusal: { what: string; fix: string }): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (context) => {
      const refused = new ApiError(
        413,
        'payload_too_large',
        `The body of ${context.req.method} ${context.req.path} is over the limit of ${formatLimit(maxBytes)} for ${refusal.what}. ${refusal.fix}`,
      );
      // The rest of the body is only dropped (`serveLocally`'s lingering close) and the connection then ends: the client is told not to reuse it.
      return context.json(refused.body(), 413, { connection: 'close' });
    },
  });
}
