import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { ROUTES, type RouteSpec } from './route-table.js';
import { ErrorBodySchema } from './wire/errors.js';

export interface ApiResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body as JSON, when it is JSON. */
  json: unknown;
  /** The route of the table it answered, when it is an API route. */
  route: string | undefined;
}

/** The table's route for a method and path, with `{param}` matching one segment. */
export function routeOf(method: string, path: string): [string, RouteSpec] | undefined {
  const bare = path.split('?')[0]!;
  for (const [name, route] of Object.entries(ROUTES) as Array<[string, RouteSpec]>) {
    if (route.method !== method.toLowerCase()) continue;
    const pattern = new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`);
    if (pattern.test(bare)) return [name, route];
  }
  return undefined;
}

/** Every response the tests see is checked: a success against its route's schema, an error against the error body. */
export function checkResponse(method: string, path: string, status: number, json: unknown): string | undefined {
  const found = routeOf(method, path);
  if (!path.startsWith('/api/')) return undefined;
  if (status >= 400) {
    const parsed = ErrorBodySchema.safeParse(json);
    return parsed.success ? undefined : `${method} ${path} ${status}: not an error body: ${parsed.error.message}`;
  }
  if (!found) return `${method} ${path} answered ${status} but is not in the route table`;
  const [name, route] = found;
  const response = route.responses[status];
  if (!response)
    return `${method} ${path} (${name}) answered ${status}, which its route does not document (${Object.keys(route.responses).join(', ')})`;
  if (!response.schema) return undefined;
  const parsed = (response.schema as z.ZodType).safeParse(json);
  if (!parsed.success) return `${method} ${path} (${name}) ${status}: the body does not match its schema: ${parsed.error.message}`;
  // zod drops keys a schema does not name: a field the server sends but the wire does not document shows here.
  return undocumentedFields(json, parsed.data, `${method} ${path} (${name}) ${status}`);
}

/**
 * What parsing with a wire schema dropped from `sent` (undefined when nothing): the wire is derived
 * from core's vocabulary, so a field core adds and the server sends, but the wire leaves out, is drift.
 */
export function undocumentedFields(sent: unknown, parsed: unknown, where: string): string | undefined {
  return isDeepStrictEqual(parsed, sent)
    ? undefined
    : `${where}: fields the wire schema does not name were dropped: sent ${JSON.stringify(sent)}, parsed ${JSON.stringify(parsed)}`;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is (default: JSON of `body`). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Default: `Bearer <token>` is sent. */
  token?: string | null;
  /** Opens the connection at once (telling `connected` when it is open) but writes the request only once `written` resolves. */
  /** Default: node:http's global agent. */
  agent?: Agent;
  hold?: { connected: (open: Promise<void>) => void; written: Promise<void> };
}

/** A client of one running server, through node:http (fetch may not send `Host`). */
export class ApiClient {
  /** Responses that did not match their schema; a test's afterEach asserts there are none. */
  readonly mismatches: string[] = [];

  constructor(
    readonly port: number,
    readonly token: string,
  ) {}

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { host: `127.0.0.1:${this.port}`, ...options.headers };
    const token = options.token === undefined ? this.token : options.token;
    if (token !== null && !('authorization' in headers)) headers['authorization'] = `Bearer ${token}`;
    let payload: string | undefined = options.rawBody;
    if (payload === undefined && options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
      const outgoing = httpRequest(
        { host: '127.0.0.1', port: this.port, method, path, headers, ...(options.agent ? { agent: options.agent } : {}) },
        (incoming) => {
          let text = '';
          incoming.setEncoding('utf8');
          incoming.on('data', (chunk: string) => (text += chunk));
          incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text }));
          incoming.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      const hold = options.hold;
      if (!hold) {
        outgoing.end(payload);
        return;
      }
      hold.connected(
        new Promise<void>((open) => {
          outgoing.once('error', () => open());
          outgoing.once('socket', (socket) => (socket.connecting ? socket.once('connect', () => open()) : open()));
        }),
      );
      void hold.written.then(() => outgoing.end(payload));
    });
    let json: unknown;
    if (String(response.headers['content-type']).includes('application/json')) json = JSON.parse(response.text);
    const mismatch = checkResponse(method, path, response.status, json);
    if (mismatch) this.mismatches.push(mismatch);
    return { ...response, json, route: routeOf(method, path)?.[0] };
  }

  get(path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    return this.request('GET', path, options);
  }

  post(path: string, body: unknown, options: RequestOptions = {}): Promise<ApiResponse> {
    return this.request('POST', path, { ...options, body });
  }

  /**
   * Posts each body over its own connection, all written in one tick: the server reads them in one
   * turn of its event loop, as requests arriving together. The connections are opened (and used) first,
   * as a new connection is read a turn after it is accepted.
   */
  async postTogether(path: string, bodies: unknown[]): Promise<ApiResponse[]> {
    const agent = new Agent({ keepAlive: true });
    try {
      await Promise.all(bodies.map(() => this.get('/api/workspace', { agent })));
      let write!: () => void;
      const written = new Promise<void>((resolve) => (write = resolve));
      const open: Array<Promise<void>> = [];
      const answers = bodies.map((body) =>
        this.request('POST', path, { body, agent, hold: { connected: (connection) => open.push(connection), written } }),
      );
      await Promise.all(open);
      write();
      return await Promise.all(answers);
    } finally {
      agent.destroy();
    }
  }

  /** Opens `/api/events` (with `lastEventId` as the header when given). */
  events(options: { session?: string; lastEventId?: string; deltas?: string } = {}): EventStream {
    return new EventStream(this, options);
  }
}

export interface StreamMessage {
  id: string | undefined;
  event: string;
  data: unknown;
}

/** A server-sent-events client that keeps every message, and the last id, as a browser's EventSource would. */
export class EventStream {
  readonly messages: StreamMessage[] = [];
  /** The id of the last message that had one, as EventSource keeps it (an id-only message sets it too). */
  lastEventId: string | undefined;
  /** Every id the stream carried, in order: an event's, a reset's and an id-only message's. */
  readonly ids: string[] = [];
  comments = 0;
  private readonly waiters = new Set<() => void>();
  private closeRequest: (() => void) | undefined;
  readonly opened: Promise<number>;

  constructor(client: ApiClient, options: { session?: string; lastEventId?: string; deltas?: string }) {
    const query = new URLSearchParams({
      ...(options.session ? { session: options.session } : {}),
      ...(options.deltas ? { deltas: options.deltas } : {}),
    }).toString();
    const path = `/api/events${query ? `?${query}` : ''}`;
    this.opened = new Promise((resolve, reject) => {
      const headers: Record<string, string> = {
        host: `127.0.0.1:${client.port}`,
        authorization: `Bearer ${client.token}`,
        accept: 'text/event-stream',
      };
      if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
      const outgoing = httpRequest({ host: '127.0.0.1', port: client.port, path, headers }, (incoming) => {
        resolve(incoming.statusCode ?? 0);
        let buffer = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            this.take(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        });
        incoming.on('error', () => undefined);
      });
      outgoing.on('error', reject);
      this.closeRequest = () => outgoing.destroy();
      outgoing.end();
    });
  }

  private take(block: string): void {
    let id: string | undefined;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments++;
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (id !== undefined) {
      this.lastEventId = id;
      this.ids.push(id);
    }
    if (data.length > 0) this.messages.push({ id, event, data: JSON.parse(data.join('\n')) });
    for (const wake of [...this.waiters]) wake();
  }

  /** Legion events of the stream (`event: legion`), their data. */
  legion(): Array<{ type: string; seq: number } & Record<string, unknown>> {
    return this.messages
      .filter((message) => message.event === 'legion')
      .map((message) => message.data as { type: string; seq: number } & Record<string, unknown>);
  }

  /** Resolves once `test` holds for the messages so far (checked at every message and comment). */
  until<T>(test: (stream: EventStream) => T | undefined | false, what = 'the expected events', timeoutMs = 15_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const value = test(this);
        if (value === undefined || value === false) return false;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(value);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `timed out waiting for ${what}; got: ${this.messages.map((message) => `${message.id} ${message.event} ${(message.data as { type?: string }).type ?? ''}`).join(', ')}`,
          ),
        );
      }, timeoutMs);
      if (!check()) this.waiters.add(check);
    });
  }

  close(): void {
    this.closeRequest?.();
  }
}
