import { randomBytes } from 'node:crypto';
import type { SessionBackend, SessionBackendOptions, StorageWarning } from '../session-backend.js';
import { MemorySessionStore } from './MemorySessionStore.js';
import { MemoryConversations } from './memory-conversations.js';
import { MemoryAgentState, MemoryApprovals, MemoryArtifacts, MemoryUsage } from './memory-records-stores.js';
import { MemorySessions } from './memory-sessions.js';
import { MemoryQuestions } from './memory-questions.js';

export interface MemorySessionBackendOptions extends SessionBackendOptions {
  /** The store to share with other instances (other simulated processes); a new one by default. */
  store?: MemorySessionStore | undefined;
  /** This instance's identity as a lease holder; `store.endProcess(id)` simulates its death. Random by default. */
  processId?: string | undefined;
}

/**
 * Sessions in memory: for tests, for embedding Legion where nothing should
 * touch the disk, and as the second implementation the contract suite runs
 * against. Instances made on one `MemorySessionStore` see each other's writes,
 * leases and approvals as separate processes on one file workspace would.
 */
export class MemorySessionBackend implements SessionBackend {
  readonly store: MemorySessionStore;
  readonly processId: string;
  readonly sessions: MemorySessions;
  readonly conversations: MemoryConversations;
  readonly approvals: MemoryApprovals;
  readonly questions: MemoryQuestions;
  readonly usage: MemoryUsage;
  readonly agentState: MemoryAgentState;
  readonly artifacts: MemoryArtifacts;

  constructor(options: MemorySessionBackendOptions = {}) {
    this.store = options.store ?? new MemorySessionStore();
    this.processId = options.processId ?? `memory-${randomBytes(6).toString('hex')}`;
    // A broken record is reported once per instance, not at every read (as the file backend does).
    const warned = new Set<string>();
    const warn = (warning: StorageWarning): void => {
      const key = `${warning.source}:${warning.offset}:${warning.problem}`;
      if (warned.has(key)) return;
      warned.add(key);
      options.onWarning?.(warning);
    };
    this.sessions = new MemorySessions(this.store, warn);
    this.conversations = new MemoryConversations(this.store, this.processId, options.now ?? Date.now, warn);
    this.approvals = new MemoryApprovals(this.store, warn);
    this.questions = new MemoryQuestions(this.store, warn);
    this.usage = new MemoryUsage(this.store, warn);
    this.agentState = new MemoryAgentState(this.store);
    this.artifacts = new MemoryArtifacts(this.store);
  }

  watch(sessionId: string, onChange: () => void): () => void {
    return this.store.watch(sessionId, onChange);
  }

  async close(): Promise<void> {
    this.conversations.releaseAll();
  }
}
