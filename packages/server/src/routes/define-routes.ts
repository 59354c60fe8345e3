import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { LegionError } from '@legion-collective/core';
import { ApiError, parseInput } from '../api-error.js';
import { limitBody } from '../body-limit.js';
import { honoPath, ROUTES, type RouteName } from '../route-table.js';
import type { ServerContext } from '../server-context.js';

type Spec<Name extends RouteName> = (typeof ROUTES)[Name];
type QueryOf<Name extends RouteName> = Spec<Name> extends { query: infer Query extends z.ZodType } ? z.infer<Query> : Record<string, never>;
type BodyOf<Name extends RouteName> = Spec<Name> extends { body: infer Body extends z.ZodType } ? z.infer<Body> : undefined;
/** The route's documented success body (each route has one success status, the table's). */
type ResponseOf<Name extends RouteName> = {
  [Status in keyof Spec<Name>['responses']]: Spec<Name>['responses'][Status] extends { schema: infer Schema extends z.ZodType }
    ? z.infer<Schema>
    : never;
}[keyof Spec<Name>['responses']];

export interface RouteInput<Name extends RouteName> {
  params: Record<string, string>;
  query: QueryOf<Name>;
  body: BodyOf<Name>;
  context: Context;
}

export type JsonHandler<Name extends RouteName> = (server: ServerContext, input: RouteInput<Name>) => Promise<ResponseOf<Name>>;

/** Core's errors a caller can cause, as API errors. */
export function fromLegionError(error: unknown): unknown {
  if (!(error instanceof LegionError)) return error;
  switch (error.code) {
    case 'session_not_found':
    case 'participant_not_found':
      return new ApiError(404, 'not_found', error.message);
    case 'conversation_busy':
      return new ApiError(409, 'conversation_busy', error.message);
    case 'not_an_agent':
      return new ApiError(400, 'not_an_agent', error.message);
    case 'claim_not_found':
      return new ApiError(404, 'claim_not_found', error.message);
    case 'invalid_id':
    case 'message_too_large':
    case 'self_message':
      return new ApiError(400, 'bad_request', error.message);
    default:
      return error;
  }
}

/**
 * Registers a JSON route of the table: its query and body are parsed with the route's schemas
 * before the handler runs; the handler answers with one of the route's documented responses.
 */
export function jsonRoute<Name extends RouteName>(app: Hono, server: ServerContext, name: Name, handler: JsonHandler<NoInfer<Name>>): void {
  const spec = ROUTES[name] as Spec<Name> & { query?: z.ZodType; body?: z.ZodType; bodyKind?: 'message' };
  const status = Number(Object.keys(spec.responses)[0]) as 200;
  const message = spec.bodyKind === 'message';
  // Bounded at the door, before a byte is parsed: a body is read whole to parse it, so one without a bound is memory without one.
  const door = message
    ? limitBody(server.bodyLimits.message, {
        what: 'a message',
        fix: 'Send a file path instead of the content, or raise limits.maxMessageBytes in .legion/config.json (this limit follows it).',
      })
    : limitBody(server.bodyLimits.small, { what: `the body of ${name}`, fix: 'Send less: this body holds ids, decisions or a title.' });
  app.on(spec.method.toUpperCase(), honoPath(spec.path), door, async (context) => {
    const query = (spec.query ? parseInput(spec.query, context.req.query(), 'query') : {}) as QueryOf<Name>;
    let body: unknown;
    if (spec.body) {
      let raw: unknown;
      try {
        raw = await context.req.json();
      } catch {
        throw new ApiError(
          400,
          'bad_request',
          `The body of ${spec.method.toUpperCase()} ${context.req.path} is not JSON: send a JSON object (see /api/openapi.json).`,
        );
      }
      body = parseInput(spec.body, raw, 'body');
    }
    try {
      const response = await handler(server, {
        params: context.req.param() as Record<string, string>,
        query,
        body: body as BodyOf<Name>,
        context,
      });
      return context.json(response as object, status);
    } catch (error) {
      throw fromLegionError(error);
    }
  });
}
