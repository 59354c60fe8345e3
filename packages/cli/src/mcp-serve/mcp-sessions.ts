import { refusal } from './http-guard.js';

/** One MCP session of the HTTP transport: its transport's handler, and how to close it (its server and transport). */
export interface McpSession {
  handle(request: Request): Promise<Response>;
  close(): Promise<void>;
}

export interface SessionLimits {
  /** How long a session with no request in flight lives (`mcpServe.sessionIdleSeconds`). */
  idleMs: number;
  /** How many sessions may be open at once (`mcpServe.maxSessions`). */
  max: number;
  /** Told when an idle session is closed (the server's log). */
  onExpired?: (id: string) => void;
}

interface Entry {
  session: McpSession;
  inFlight: number;
  timer?: NodeJS.Timeout | undefined;
}

/**
 * The open MCP sessions of `legion mcp serve --http`, bounded: a client that
 * quits without DELETE leaves its session idle, and an idle session is closed
 * after `idleMs` (a request in flight — a running turn, an open event stream —
 * keeps it alive); past `max` sessions a new `initialize` is refused.
 */
export class McpSessions {
  private readonly entries = new Map<string, Entry>();
  private opening = 0;

  constructor(private readonly limits: SessionLimits) {}

  get size(): number {
    return this.entries.size;
  }

  /** The refusal for one more session when the table is full, or nothing; a session may then be opened (`opened` or `abandoned` ends the reservation). */
  reserve(): Response | undefined {
    if (this.entries.size + this.opening >= this.limits.max) {
      return refusal(
        503,
        'too_many_sessions',
        `This MCP server has ${this.limits.max} sessions open, its limit (mcpServe.maxSessions): end a client you no longer use (its session closes on DELETE, or after ${describeMs(this.limits.idleMs)} idle, mcpServe.sessionIdleSeconds), or raise mcpServe.maxSessions in .legion/config.json.`,
        { 'retry-after': String(Math.ceil(this.limits.idleMs / 1000)) },
      );
    }
    this.opening += 1;
    return undefined;
  }

  abandoned(): void {
    this.opening = Math.max(0, this.opening - 1);
  }

  opened(id: string, session: McpSession): void {
    this.abandoned();
    const entry: Entry = { session, inFlight: 0 };
    this.entries.set(id, entry);
    this.arm(id, entry);
  }

  /** Forgets a session its transport closed (DELETE, or closed here). */
  forget(id: string): void {
    const entry = this.entries.get(id);
    if (entry) clearTimeout(entry.timer);
    this.entries.delete(id);
  }

  /** Hands a request to its session, the session kept alive until the response's body ends; undefined for an unknown (ended or expired) session. */
  async handle(id: string, request: Request): Promise<Response | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    return this.track(id, entry, () => entry.session.handle(request), request.signal);
  }

  /** Runs the first request (the `initialize`) of a session just made, tracked like the others once it has an id. */
  async first(request: Request, work: () => Promise<Response>, id: () => string | undefined): Promise<Response> {
    const response = await work();
    const sessionId = id();
    const entry = sessionId === undefined ? undefined : this.entries.get(sessionId);
    if (sessionId === undefined || !entry) return response;
    return this.track(sessionId, entry, async () => response, request.signal);
  }

  async closeAll(): Promise<void> {
    const sessions = [...this.entries.values()];
    for (const entry of sessions) clearTimeout(entry.timer);
    this.entries.clear();
    await Promise.all(sessions.map((entry) => entry.session.close().catch(() => undefined)));
  }

  private async track(id: string, entry: Entry, work: () => Promise<Response>, signal: AbortSignal): Promise<Response> {
    entry.inFlight += 1;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      entry.inFlight -= 1;
      this.arm(id, entry);
    };
    signal.addEventListener('abort', finish, { once: true });
    try {
      return whenBodyEnds(await work(), finish);
    } catch (error) {
      finish();
      throw error;
    }
  }

  private arm(id: string, entry: Entry): void {
    if (entry.inFlight > 0 || this.entries.get(id) !== entry) return;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      if (entry.inFlight > 0 || this.entries.get(id) !== entry) return;
      this.entries.delete(id);
      this.limits.onExpired?.(id);
      void entry.session.close().catch(() => undefined);
    }, this.limits.idleMs);
    // An idle session must not keep the process alive.
    entry.timer.unref();
  }
}

/** The same response, `finish` called once its body has been sent, failed, or cancelled by the client (a streamed reply lasts as long as its turn). */
function whenBodyEnds(response: Response, finish: () => void): Response {
  if (!response.body) {
    finish();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          finish();
        } else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        finish();
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function describeMs(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}
