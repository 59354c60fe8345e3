import { z } from 'zod';
import { ROUTES, type RouteSpec } from './route-table.js';
import { LegionWireEventSchema, ResetEventDataSchema, SessionEventDataSchema, StateEventDataSchema } from './wire/events.js';
import { ErrorBodySchema } from './wire/errors.js';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is not valid (the message names the field and the fix)',
  401: 'No valid access token',
  403: 'A foreign Origin',
  404: 'No such session, conversation, participant or question',
  409: 'Busy, or already answered elsewhere',
  413: 'The body is over the limit for the route (the message names it)',
  415: 'A state change without a JSON content type',
  421: 'A Host this server does not answer to',
};

/** JSON Schema of a wire schema, as OpenAPI 3.1 takes it (it speaks JSON Schema 2020-12). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

function operation(name: string, route: RouteSpec): Record<string, unknown> {
  const parameters: unknown[] = [];
  for (const match of route.path.matchAll(/\{(\w+)\}/g))
    parameters.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
  if (route.query) {
    for (const [key, field] of Object.entries(route.query.shape)) {
      parameters.push({
        name: key,
        in: 'query',
        required: !(field as z.ZodType).safeParse(undefined).success,
        schema: jsonSchema(field as z.ZodType, 'input'),
      });
    }
  }
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response.description,
      content: { [response.contentType ?? 'application/json']: response.schema ? { schema: jsonSchema(response.schema, 'output') } : {} },
    };
  }
  for (const status of [...(route.errors ?? []), 401, 403, 421]) {
    responses[String(status)] = {
      description: ERROR_DESCRIPTIONS[status] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
    };
  }
  return {
    operationId: name,
    summary: route.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of the API: every route of `ROUTES`, schemas from the wire types. */
export function openApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [name, route] of Object.entries(ROUTES) as Array<[string, RouteSpec]>) {
    (paths[route.path] ??= {})[route.method] = operation(name, route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Legion serve API',
      version,
      description:
        'The local API of `legion serve`. Every request needs the access token legion serve printed: `Authorization: Bearer <token>`, or the cookie that `GET /?token=<token>` sets. Requests that change state take JSON. Errors are `{ error: { code, message } }`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'legion_token' },
      },
      schemas: {
        ErrorBody: jsonSchema(ErrorBodySchema, 'output'),
        // The `data` of each server-sent event, by its `event:` name.
        LegionEvent: jsonSchema(LegionWireEventSchema, 'output'),
        StateEvent: jsonSchema(StateEventDataSchema, 'output'),
        SessionEvent: jsonSchema(SessionEventDataSchema, 'output'),
        ResetEvent: jsonSchema(ResetEventDataSchema, 'output'),
      },
    },
  };
}
