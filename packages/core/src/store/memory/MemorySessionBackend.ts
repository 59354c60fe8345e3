import { randomBytes } from 'node:crypto';
import type { SessionBackend, SessionBackendOptions, StorageWarning } from '../session-backend.js';
import { MemorySessionStore } from './MemorySessionStore.js';
import { MemoryConversations } from './memory-conversations.js';
import { MemoryAgentState, MemoryArtifacts } from './memory-records-stores.js';
import { MemorySessions } from './memory-sessions.js';
import { MemoryRecordLog } from './memory-record-log.js';
import { MemoryFileClaims } from './memory-file-claims.js';
import { MemorySessionIndex } from './memory-session-index.js';
import type { FileClaimStore } from '../records/file-claim.js';
import { APPROVAL_LOG, CONFLICT_LOG, QUESTION_LOG, USAGE_LOG } from '../record-log-formats.js';
import type { ClaimConflictRecord } from '../records/claim-conflict-record.js';
import type { ApprovalDecisionRecord, ApprovalRequestRecord } from '../records/approval-records.js';
import type { QuestionOutcomeRecord, QuestionRecord } from '../records/question-records.js';
import type { UsageRecord } from '../records/usage-summary.js';

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
  readonly approvals: MemoryRecordLog<ApprovalRequestRecord, ApprovalDecisionRecord>;
  readonly questions: MemoryRecordLog<QuestionRecord, QuestionOutcomeRecord>;
  readonly usage: MemoryRecordLog<UsageRecord>;
  readonly conflicts: MemoryRecordLog<ClaimConflictRecord>;
  readonly agentState: MemoryAgentState;
  readonly artifacts: MemoryArtifacts;
  readonly fileClaims: FileClaimStore;
  readonly index: MemorySessionIndex;
  /** The same store, for what only this backend does with it (giving back all it holds on close). */
  private readonly heldClaims: MemoryFileClaims;

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
    this.approvals = new MemoryRecordLog(this.store, APPROVAL_LOG, warn);
    this.questions = new MemoryRecordLog(this.store, QUESTION_LOG, warn);
    this.usage = new MemoryRecordLog(this.store, USAGE_LOG, warn);
    this.conflicts = new MemoryRecordLog(this.store, CONFLICT_LOG, warn);
    this.agentState = new MemoryAgentState(this.store);
    this.artifacts = new MemoryArtifacts(this.store);
    this.index = new MemorySessionIndex(this.sessions, this.conversations, this.usage);
    this.heldClaims = new MemoryFileClaims(this.store, this.processId);
    this.fileClaims = this.heldClaims;
  }

  watch(sessionId: string, onChange: () => void): () => void {
    return this.store.watch(sessionId, onChange);
  }

  async close(): Promise<void> {
    this.conversations.releaseAll();
    this.heldClaims.releaseAll();
  }
}
