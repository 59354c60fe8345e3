import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { RecordLogName } from '../records/record-log-name.js';

export const LEGION_DIR = '.legion';

/** Where each record log keeps its claim files, beside it in the session's folder. */
const CLAIM_FOLDERS: Record<RecordLogName, string | undefined> = {
  approvals: 'approval-decisions',
  questions: 'question-outcomes',
  usage: undefined,
  conflicts: undefined,
};

/** Every path inside `.legion/`, in one place, so nothing else builds them by hand. */
export class WorkspacePaths {
  readonly root: string;
  readonly legionDir: string;
  readonly sessionsDir: string;
  /** Built on every append and step (locks, agent state): joined once per session. */
  private readonly sessionDirs = new Map<string, string>();

  constructor(root: string) {
    this.root = resolve(root);
    this.legionDir = join(this.root, LEGION_DIR);
    this.sessionsDir = join(this.legionDir, 'sessions');
  }

  get configFile(): string {
    return join(this.legionDir, 'config.json');
  }
  get gitignoreFile(): string {
    return join(this.legionDir, '.gitignore');
  }
  get participantsDir(): string {
    return join(this.legionDir, 'collective', 'participants');
  }
  participantFile(id: string): string {
    return join(this.participantsDir, `${id}.json`);
  }
  /** "Approve always" rules, one file each (`<rule id>.json`): beside the roster, meant for git. */
  get approvalRulesDir(): string {
    return join(this.legionDir, 'collective', 'approval-rules');
  }
  get templatesDir(): string {
    return join(this.legionDir, 'templates');
  }
  /** Git worktrees of isolated turns (`<id>/`) and their records (`<id>.json`): local working state, ignored by git. */
  get worktreesDir(): string {
    return join(this.legionDir, 'worktrees');
  }
  worktreeDir(id: string): string {
    return join(this.worktreesDir, id);
  }
  worktreeRecord(id: string): string {
    return join(this.worktreesDir, `${id}.json`);
  }
  get toolsDir(): string {
    return join(this.legionDir, 'tools');
  }
  sessionDir(sessionId: string): string {
    let dir = this.sessionDirs.get(sessionId);
    if (dir === undefined) {
      dir = join(this.sessionsDir, sessionId);
      // Ids come from the workspace's sessions (a few per process); a bound keeps a long-lived server's map small anyway.
      if (this.sessionDirs.size >= 1024) this.sessionDirs.clear();
      this.sessionDirs.set(sessionId, dir);
    }
    return dir;
  }
  sessionFile(sessionId: string): string {
    return join(this.sessionDir(sessionId), 'session.json');
  }
  /** What the session index keeps of a session: its counts, usage totals and word filter (a cache of its logs). */
  sessionIndexFile(sessionId: string): string {
    return join(this.sessionDir(sessionId), 'index.json');
  }
  conversationsDir(sessionId: string): string {
    return join(this.sessionDir(sessionId), 'conversations');
  }
  conversationFile(sessionId: string, conversationId: string): string {
    return join(this.conversationsDir(sessionId), `${conversationId}.jsonl`);
  }
  conversationLock(sessionId: string, conversationId: string): string {
    return join(this.sessionDir(sessionId), 'locks', `${conversationId}.lock`);
  }
  approvalsFile(sessionId: string): string {
    return join(this.sessionDir(sessionId), 'approvals.jsonl');
  }
  questionsFile(sessionId: string): string {
    return join(this.sessionDir(sessionId), 'questions.jsonl');
  }
  /** One claim file per settled question: the first to create it settled it. */
  questionOutcomeClaim(sessionId: string, questionId: string): string {
    return this.recordClaim(sessionId, 'questions', questionId)!;
  }
  /** One claim file per decided approval request: the first to create it decided it. */
  approvalDecisionClaim(sessionId: string, requestId: string): string {
    return this.recordClaim(sessionId, 'approvals', requestId)!;
  }
  usageFile(sessionId: string): string {
    return join(this.sessionDir(sessionId), 'usage.jsonl');
  }
  /** A record log of the session (`approvals`, `questions`, `usage`, `conflicts`): `<name>.jsonl`. */
  recordLogFile(sessionId: string, name: RecordLogName): string {
    return join(this.sessionDir(sessionId), `${name}.jsonl`);
  }
  /**
   * The claim file of one key of a record log: the first to create it claimed the key. Undefined
   * for a log that records no claims. The folders' names are those Legion has always used.
   */
  recordClaim(sessionId: string, name: RecordLogName, key: string): string | undefined {
    const folder = CLAIM_FOLDERS[name];
    return folder === undefined ? undefined : join(this.sessionDir(sessionId), folder, `${encodeURIComponent(key)}.json`);
  }
  /** Machine-local state of running processes (claims, child records): never in git, never a session. */
  get runDir(): string {
    return join(this.legionDir, 'run');
  }
  /** One record per process group a tool started, so that a later process can end what a crashed one left. */
  get processesDir(): string {
    return join(this.runDir, 'processes');
  }
  /** One lock file per file claimed by a running turn (`FileClaims`). */
  get fileClaimsDir(): string {
    return join(this.runDir, 'file-claims');
  }
  /** One record per surface attached in a live process (`SurfacePresence`): who can be asked now. */
  get surfacesDir(): string {
    return join(this.runDir, 'surfaces');
  }
  /** Which session was active last: a cache that spares a scan of every session.json. */
  get latestSessionIndex(): string {
    return join(this.runDir, 'latest-session.json');
  }
  get firstSessionClaim(): string {
    return join(this.runDir, 'first-session.json');
  }
  /** Large tool outputs and other blobs a session keeps by name (the storage backend's artifacts). */
  artifactsDir(sessionId: string): string {
    return join(this.sessionDir(sessionId), 'artifacts');
  }

  /** Relative to the workspace root, for messages shown to people. */
  display(path: string): string {
    return path.startsWith(this.root + '/') ? path.slice(this.root.length + 1) : path;
  }
}

/** The nearest directory at or above `start` that holds `.legion/`. */
export function findWorkspaceRoot(start: string): string | undefined {
  let current = resolve(start);
  for (;;) {
    if (existsSync(join(current, LEGION_DIR))) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}
