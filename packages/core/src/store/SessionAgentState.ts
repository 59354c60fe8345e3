import type { z } from 'zod';
import type { AgentStateStore } from './session-backend.js';

/**
 * One session's per-agent documents (`todos`, `scratchbook`, …) through the
 * backend. `update` reads, changes and writes one document with no other
 * update of the same document in this process in between.
 */
export class SessionAgentState {
  /** The update running (or last run) per document: the next one waits for it. */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: AgentStateStore,
    private readonly sessionId: string,
  ) {}

  get<T>(kind: string, agentId: string, schema: z.ZodType<T>): Promise<T | undefined> {
    return this.store.get({ sessionId: this.sessionId, kind, agentId }, schema);
  }

  put(kind: string, agentId: string, value: unknown): Promise<void> {
    return this.store.put({ sessionId: this.sessionId, kind, agentId }, value);
  }

  /**
   * Reads the document, lets `change` decide (a value to store, or none to
   * leave it as it is) and stores it, one update of a document at a time.
   */
  update<T, R>(
    kind: string,
    agentId: string,
    schema: z.ZodType<T>,
    change: (current: T | undefined) => { value?: T | undefined; result: R },
  ): Promise<R> {
    const key = `${kind}\u0000${agentId}`;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const run = previous.then(async () => {
      const outcome = change(await this.get(kind, agentId, schema));
      if (outcome.value !== undefined) await this.put(kind, agentId, outcome.value);
      return outcome.result;
    });
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(key, settled);
    // The last update of a document leaves nothing behind.
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return run;
  }
}
