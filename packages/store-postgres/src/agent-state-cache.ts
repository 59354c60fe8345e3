import type { AgentStateKey } from '@legion-collective/core/backend';

/**
 * The channel an instance notifies on, on commit, when it writes a row of `legion.agent_state`
 * (payload `<session>/<kind>/<agent>`) or removes a session (`<session>/`: all of its rows).
 */
export const AGENT_STATE_CHANNEL = 'legion_agent_state';

/**
 * The agent state documents this instance read, so that the todos and notes that go into every
 * model request are not read from the database at every step. An entry is dropped when any
 * process changes its row (its notification, on this instance's listening connection),
 * when this instance writes it, when a turn takes a lease on the session (a turn never starts on
 * what a late notification has not dropped yet) and, all of them, whenever the listening
 * connection is lost or (re)made (what was notified meanwhile is unknown). Nothing is cached while
 * that connection is down.
 */
export class AgentStateCache {
  /** By `<session>/<kind>/<agent>`: the stored document, or null for no row. */
  private readonly documents = new Map<string, { document: unknown }>();
  /**
   * Moved on by every drop: a read that started before one may have read what was dropped, and
   * is not kept. (One counter for all keys: a drop elsewhere costs at most one more read.)
   */
  private generation = 0;

  constructor(private readonly listening: () => boolean) {}

  static id(key: AgentStateKey): string {
    return `${key.sessionId}/${key.kind}/${key.agentId}`;
  }

  lookup(key: AgentStateKey): { document: unknown } | undefined {
    return this.documents.get(AgentStateCache.id(key));
  }

  /** Reads through the cache: `read` goes to the database, and what it gives is kept if nothing was dropped meanwhile. */
  async read(key: AgentStateKey, read: () => Promise<unknown>): Promise<unknown> {
    const cached = this.lookup(key);
    if (cached) return cached.document;
    const usable = this.listening();
    const generation = this.generation;
    const document = await read();
    if (usable && this.listening() && generation === this.generation) this.documents.set(AgentStateCache.id(key), { document });
    return document;
  }

  /** A row changed (`<session>/<kind>/<agent>`), or a session's rows (`<session>/`), here or elsewhere. */
  drop(id: string): void {
    if (id.endsWith('/')) return this.dropSession(id.slice(0, -1));
    this.generation++;
    this.documents.delete(id);
  }

  dropSession(sessionId: string): void {
    this.generation++;
    for (const id of this.documents.keys()) if (id.startsWith(`${sessionId}/`)) this.documents.delete(id);
  }

  clear(): void {
    this.generation++;
    this.documents.clear();
  }
}
