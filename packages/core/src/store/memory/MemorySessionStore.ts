/** One lease as the store holds it. */
export interface MemoryLeaseRecord {
  owner: string;
  expiresAtMs: number;
  token: string;
  /** The instance ("process") that holds it: when it ends, the lease is free at once. */
  processId: string;
}

/** A conversation's header and entries, each as the JSON text a database row would hold. */
export interface MemoryLogRecord {
  header: string | undefined;
  entries: string[];
}

/**
 * What a `MemorySessionBackend` stores, shared by every backend made on it:
 * several Legion instances in one process on one store are what "several
 * processes" are for the memory backend. Records are kept as JSON text, so a
 * reader gets its own copy and validates it, as it would reading a file or a row.
 */
export class MemorySessionStore {
  /** Session id → session metadata (JSON). */
  readonly sessions = new Map<string, string>();
  /** The first session's id, once claimed: callers racing on an empty store all take it. */
  firstSession: string | undefined;
  /** `<session>/<conversation>` → log. */
  readonly logs = new Map<string, MemoryLogRecord>();
  readonly leases = new Map<string, MemoryLeaseRecord>();
  /** `<session>/<log>` → the records (JSON) of a record log (`approvals`, `questions`, `usage`, `conflicts`), in order. */
  readonly recordLogs = new Map<string, string[]>();
  /** `<session>/<log>/<key>` → the claim that won the key (a request's decision, a question's outcome). */
  readonly claims = new Map<string, string>();
  /** Workspace path → the file claim that holds it (JSON) and the instance ("process") that took it. */
  readonly fileClaims = new Map<string, { claim: string; processId: string }>();
  /** `<session>/<kind>/<agent>` → state document (JSON). */
  readonly agentState = new Map<string, string>();
  /** Session id → artifact name → bytes. */
  readonly artifacts = new Map<string, Map<string, Uint8Array>>();
  private readonly ended = new Set<string>();
  /** Session id → who wants to hear that it changed (followers' wake-up hint). */
  private readonly watchers = new Map<string, Set<() => void>>();

  /** Calls `onChange` after each append to the session's conversations, approvals, questions or conflicts, by any instance; returns the stop. */
  watch(sessionId: string, onChange: () => void): () => void {
    let listeners = this.watchers.get(sessionId);
    if (!listeners) this.watchers.set(sessionId, (listeners = new Set()));
    listeners.add(onChange);
    return () => {
      listeners.delete(onChange);
      if (listeners.size === 0 && this.watchers.get(sessionId) === listeners) this.watchers.delete(sessionId);
    };
  }

  changed(sessionId: string): void {
    const listeners = this.watchers.get(sessionId);
    // Later, as a file system's notification comes (a macrotask): the writer's own events, emitted
    // right after its write resolves, come first, so a follower in its process knows them as its own.
    if (listeners) for (const listener of listeners) setImmediate(listener);
  }

  /** The instance `processId` died: its leases may be taken over at once (what a crash is to the file backend). */
  endProcess(processId: string): void {
    this.ended.add(processId);
  }

  isEnded(processId: string): boolean {
    return this.ended.has(processId);
  }
}
