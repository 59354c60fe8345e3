import { relative, sep } from 'node:path';
import type { LogWarning } from '../fs/jsonl-log.js';
import { WorkspacePaths } from '../fs/workspace-paths.js';
import { FileClaims } from './file-claims.js';
import type { FileClaimStore } from '../records/file-claim.js';
import type { SessionBackend, SessionBackendOptions } from '../session-backend.js';
import { FileAgentState } from './file-agent-state.js';
import { FileArtifacts } from './file-artifacts.js';
import { FileConversations } from './file-conversations.js';
import { FileSessions } from './file-sessions.js';
import { FileRecordLog } from './file-record-log.js';
import { FileSessionIndex } from './file-session-index.js';
import { APPROVAL_LOG, CONFLICT_LOG, QUESTION_LOG, USAGE_LOG } from '../record-log-formats.js';
import type { ClaimConflictRecord } from '../records/claim-conflict-record.js';
import type { ApprovalDecisionRecord, ApprovalRequestRecord } from '../records/approval-records.js';
import type { QuestionOutcomeRecord, QuestionRecord } from '../records/question-records.js';
import type { UsageRecord } from '../records/usage-summary.js';
import { watchSessionFiles } from './file-session-watch.js';

export interface FileSessionBackendOptions extends SessionBackendOptions {
  /** The workspace root: the folder that holds `.legion/`. */
  root: string;
  /** `message`: every append is fsynced; `turn`: on `flush` (the end of a turn); `never`. Default `turn`. */
  fsync?: 'message' | 'turn' | 'never' | undefined;
}

/**
 * The default backend: the `.legion/sessions/` files Legion has always written,
 * through the same code (JSONL appends, atomic JSON, O_EXCL lock files, claim
 * files), so a workspace written before this interface existed reads the same
 * and one written through it is read by older code.
 */
export class FileSessionBackend implements SessionBackend {
  readonly sessions: FileSessions;
  readonly conversations: FileConversations;
  readonly approvals: FileRecordLog<ApprovalRequestRecord, ApprovalDecisionRecord>;
  readonly questions: FileRecordLog<QuestionRecord, QuestionOutcomeRecord>;
  readonly usage: FileRecordLog<UsageRecord>;
  readonly conflicts: FileRecordLog<ClaimConflictRecord>;
  readonly agentState: FileAgentState;
  readonly artifacts: FileArtifacts;
  readonly fileClaims: FileClaimStore;
  readonly index: FileSessionIndex;
  /** The same store, for what only this backend does with it (giving back all it holds on close). */
  private readonly heldClaims: FileClaims;
  private readonly paths: WorkspacePaths;

  constructor(options: FileSessionBackendOptions) {
    const paths = new WorkspacePaths(options.root);
    this.paths = paths;
    const onWarning = (warning: LogWarning): void =>
      options.onWarning?.({
        source: paths.display(warning.path),
        offset: warning.offset,
        problem: warning.problem,
        ...sessionOf(paths, warning.path),
      });
    this.sessions = new FileSessions(paths, (warning) => options.onWarning?.(warning));
    this.conversations = new FileConversations(paths, {
      fsync: options.fsync ?? 'turn',
      onWarning,
      now: options.now ?? Date.now,
      onAppended: (address, placed, message) => this.index.conversationAppended(address, placed, message),
    });
    this.index = new FileSessionIndex(paths, this.conversations);
    this.approvals = new FileRecordLog(paths, APPROVAL_LOG, onWarning);
    this.questions = new FileRecordLog(paths, QUESTION_LOG, onWarning);
    this.usage = new FileRecordLog(paths, USAGE_LOG, onWarning, (sessionId, placed, record) =>
      this.index.usageAppended(sessionId, placed, record),
    );
    this.conflicts = new FileRecordLog(paths, CONFLICT_LOG, onWarning);
    this.agentState = new FileAgentState(paths);
    this.artifacts = new FileArtifacts(paths);
    this.heldClaims = new FileClaims(paths);
    this.fileClaims = this.heldClaims;
  }

  watch(sessionId: string, onChange: () => void): () => void {
    return watchSessionFiles(this.paths, sessionId, onChange);
  }

  async close(): Promise<void> {
    this.index.flush();
    this.conversations.close();
    this.heldClaims.releaseAll();
    this.approvals.close();
    this.questions.close();
    this.usage.close();
    this.conflicts.close();
  }
}

/** The session a file belongs to (`sessions/<id>/…`), so that a warning about it names its session. */
function sessionOf(paths: WorkspacePaths, path: string): { sessionId?: string } {
  const inside = relative(paths.sessionsDir, path);
  if (inside.startsWith('..')) return {};
  const sessionId = inside.split(sep)[0];
  return sessionId ? { sessionId } : {};
}
