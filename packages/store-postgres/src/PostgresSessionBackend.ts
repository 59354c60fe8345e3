import { type SessionBackend, type UsageRecord } from '@legion-collective/core';
import {
  APPROVAL_LOG,
  type FileClaimStore,
  QUESTION_LOG,
  CONFLICT_LOG,
  type ClaimConflictRecord,
  USAGE_LOG,
  type ApprovalDecisionRecord,
  type ApprovalRequestRecord,
  type QuestionOutcomeRecord,
  type QuestionRecord,
  type SessionBackendOptions,
} from '@legion-collective/core/backend';
import { Database, type DatabaseOptions } from './connection.js';
import { PostgresConversations } from './pg-conversations.js';
import { PostgresLeases } from './pg-leases.js';
import { PostgresFileClaims } from './pg-file-claims.js';
import { PostgresAgentState, PostgresArtifacts } from './pg-records.js';
import { PostgresRecordLog } from './pg-record-log.js';
import { PostgresSessions } from './pg-sessions.js';
import { PostgresSessionIndex } from './pg-session-index.js';
import { Presence } from './presence.js';
import { migrate, schemaVersion, type MigrationReport } from './schema.js';
import { onceEach } from './records.js';

export interface PostgresSessionBackendOptions extends SessionBackendOptions, DatabaseOptions {}

/**
 * Sessions in a PostgreSQL database that many Legion processes, on many machines, share with the
 * guarantees of the file backend: ordered atomic appends per conversation, one lease per
 * conversation (taken over when its holder dies or it expires), one decision per approval and one
 * outcome per question, and followers woken by LISTEN/NOTIFY. Nothing is sent to the server until
 * the first call, which checks the schema first (and applies what is missing: see `migrate`).
 */
export class PostgresSessionBackend implements SessionBackend {
  readonly sessions: PostgresSessions;
  readonly conversations: PostgresConversations;
  readonly approvals: PostgresRecordLog<ApprovalRequestRecord, ApprovalDecisionRecord>;
  readonly questions: PostgresRecordLog<QuestionRecord, QuestionOutcomeRecord>;
  readonly usage: PostgresRecordLog<UsageRecord>;
  readonly conflicts: PostgresRecordLog<ClaimConflictRecord>;
  readonly agentState: PostgresAgentState;
  readonly artifacts: PostgresArtifacts;
  readonly fileClaims: FileClaimStore;
  readonly index: PostgresSessionIndex;
  /** The same store, for what only this backend does with it (giving back all it holds on close). */
  private readonly heldClaims: PostgresFileClaims;
  private readonly db: Database;
  private readonly presence: Presence;
  private readonly leases: PostgresLeases;

  constructor(options: PostgresSessionBackendOptions) {
    this.db = new Database(options);
    this.presence = new Presence(options);
    this.db.listening = this.presence;
    const warn = onceEach(options.onWarning);
    this.leases = new PostgresLeases(this.db, this.presence, options.now);
    this.sessions = new PostgresSessions(this.db, warn);
    this.conversations = new PostgresConversations(this.db, this.leases, warn, options.durability, this.presence.agentState);
    this.approvals = new PostgresRecordLog(this.db, APPROVAL_LOG, warn);
    this.questions = new PostgresRecordLog(this.db, QUESTION_LOG, warn);
    this.usage = new PostgresRecordLog(this.db, USAGE_LOG, warn);
    this.conflicts = new PostgresRecordLog(this.db, CONFLICT_LOG, warn);
    this.agentState = new PostgresAgentState(this.db, this.presence.agentState);
    this.artifacts = new PostgresArtifacts(this.db);
    this.index = new PostgresSessionIndex(this.db, warn);
    this.heldClaims = new PostgresFileClaims(this.db, this.presence);
    this.fileClaims = this.heldClaims;
  }

  /** Connects and checks the schema (migrating an older one); rejects with `SchemaTooNewError` or the connection's error. */
  ready(): Promise<void> {
    return this.db.whenReady();
  }

  /** The schema version the database is at, 0 for one Legion never used; nothing is changed. */
  schemaVersion(): Promise<number> {
    return this.db.withClient((client) => schemaVersion(client));
  }

  /** Applies the migrations the database lacks (`dryRun`: only says which). */
  migrate(options: { dryRun?: boolean } = {}): Promise<MigrationReport> {
    return this.db.withClient((client) => migrate(client, this.db.options.url, options));
  }

  watch(sessionId: string, onChange: () => void): () => void {
    return this.presence.watch(sessionId, onChange);
  }

  private closing: Promise<void> | undefined;

  /** Gives back the leases it holds and closes its connections; a second call waits for the first. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.leases.releaseAll().catch(() => undefined);
      await this.heldClaims.releaseAll().catch(() => undefined);
      await this.presence.close();
      await this.db.end();
    })();
    return this.closing;
  }
}
