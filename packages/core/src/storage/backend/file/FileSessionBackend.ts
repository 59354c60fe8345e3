import { relative, sep } from 'node:path';
import type { LogWarning } from '../../jsonl-log.js';
import { WorkspacePaths } from '../../workspace-paths.js';
import type { SessionBackend, SessionBackendOptions } from '../session-backend.js';
import { FileAgentState } from './file-agent-state.js';
import { FileApprovals } from './file-approvals.js';
import { FileArtifacts } from './file-artifacts.js';
import { FileConversations } from './file-conversations.js';
import { FileSessions } from './file-sessions.js';
import { FileUsage } from './file-usage.js';
import { FileQuestions } from './file-questions.js';
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
  readonly approvals: FileApprovals;
  readonly questions: FileQuestions;
  readonly usage: FileUsage;
  readonly agentState: FileAgentState;
  readonly artifacts: FileArtifacts;
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
    this.conversations = new FileConversations(paths, { fsync: options.fsync ?? 'turn', onWarning, now: options.now ?? Date.now });
    this.approvals = new FileApprovals(paths, onWarning);
    this.questions = new FileQuestions(paths, onWarning);
    this.usage = new FileUsage(paths, onWarning);
    this.agentState = new FileAgentState(paths);
    this.artifacts = new FileArtifacts(paths);
  }

  watch(sessionId: string, onChange: () => void): () => void {
    return watchSessionFiles(this.paths, sessionId, onChange);
  }

  async close(): Promise<void> {
    this.conversations.close();
    this.approvals.close();
    this.questions.close();
    this.usage.close();
  }
}

/** The session a file belongs to (`sessions/<id>/…`), so that a warning about it names its session. */
function sessionOf(paths: WorkspacePaths, path: string): { sessionId?: string } {
  const inside = relative(paths.sessionsDir, path);
  if (inside.startsWith('..')) return {};
  const sessionId = inside.split(sep)[0];
  return sessionId ? { sessionId } : {};
}
