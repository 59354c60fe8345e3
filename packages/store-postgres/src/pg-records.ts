import type { z } from 'zod';
import { type StorageWarning, type UsageRecord } from '@legion-collective/core';
import {
  ApprovalDecisionRecordSchema,
  ApprovalRecordSchema,
  assertAgentStateKey,
  assertAgentStateKind,
  assertArtifactName,
  assertSessionName,
  QuestionLogRecordSchema,
  QuestionOutcomeRecordSchema,
  UsageRecordSchema,
  type AgentStateKey,
  type AgentStateStore,
  type ApprovalDecisionRecord,
  type ApprovalLog,
  type ApprovalRecord,
  type ArtifactInfo,
  type ArtifactStore,
  type DecideResult,
  type LogCursor,
  type QuestionLog,
  type QuestionLogRecord,
  type QuestionOutcomeRecord,
  type QuestionRecord,
  type SettleResult,
  type UsageLedgerStore,
} from '@legion-collective/core/backend';
import { AGENT_STATE_CHANNEL, AgentStateCache } from './agent-state-cache.js';
import type { Database } from './connection.js';
import { ClaimedLog } from './pg-claimed-log.js';
import { appendEntry } from './log-append.js';
import { cursorSeq, makeCursor, parseRecord, readRecord, sourceOf } from './records.js';

export class PostgresApprovals implements ApprovalLog {
  private readonly log: ClaimedLog<ApprovalRecord>;

  constructor(db: Database, warn: (warning: StorageWarning) => void) {
    this.log = new ClaimedLog(db, 'approvals', ApprovalRecordSchema, 'approval record', warn);
  }

  append(sessionId: string, record: ApprovalRecord): Promise<void> {
    return this.log.append(sessionId, record);
  }

  async decide(sessionId: string, decisions: readonly ApprovalDecisionRecord[]): Promise<DecideResult> {
    const result = await this.log.claim(
      sessionId,
      decisions.map((decision) => ({ key: decision.requestId, record: decision })),
    );
    return result.ok ? result : { ok: false, taken: result.taken.map((record) => ApprovalDecisionRecordSchema.parse(record)) };
  }

  read(sessionId: string): Promise<ApprovalRecord[]> {
    return this.log.read(sessionId);
  }
}

export class PostgresQuestions implements QuestionLog {
  private readonly log: ClaimedLog<QuestionLogRecord>;

  constructor(db: Database, warn: (warning: StorageWarning) => void) {
    this.log = new ClaimedLog(db, 'questions', QuestionLogRecordSchema, 'question record', warn);
  }

  append(sessionId: string, record: QuestionRecord): Promise<void> {
    return this.log.append(sessionId, record);
  }

  async settle(sessionId: string, record: QuestionOutcomeRecord): Promise<SettleResult> {
    const result = await this.log.claim(sessionId, [{ key: record.questionId, record }]);
    return result.ok ? result : { ok: false, taken: QuestionOutcomeRecordSchema.parse(result.taken[0]) };
  }

  read(sessionId: string): Promise<QuestionLogRecord[]> {
    return this.log.read(sessionId);
  }
}

export class PostgresUsage implements UsageLedgerStore {
  constructor(
    private readonly db: Database,
    private readonly warn: (warning: StorageWarning) => void,
  ) {}

  async append(sessionId: string, record: UsageRecord): Promise<void> {
    assertSessionName(sessionId);
    await appendEntry(this.db, { sessionId, logId: 'usage', kind: 'usage', body: record, notify: false });
  }

  async read(sessionId: string): Promise<UsageRecord[]> {
    return (await this.readSince(sessionId)).records;
  }

  async readSince(sessionId: string, cursor?: LogCursor): Promise<{ records: UsageRecord[]; cursor: LogCursor }> {
    assertSessionName(sessionId);
    const from = cursor === undefined ? 0 : cursorSeq(cursor);
    const rows = await this.db.query<{ seq: string; body: unknown }>(
      "SELECT seq, body FROM legion.entries WHERE session_id = $1 AND log_id = 'usage' AND seq > $2 ORDER BY seq",
      [sessionId, from],
    );
    const records: UsageRecord[] = [];
    let last = from;
    for (const row of rows) {
      last = Number(row.seq);
      const parsed = parseRecord(row.body, UsageRecordSchema);
      if (parsed.ok) records.push(parsed.value);
      else
        this.warn({
          source: sourceOf(sessionId, 'usage'),
          offset: last,
          problem: `skipped an unreadable usage record (${parsed.problem})`,
          sessionId,
        });
    }
    return { records, cursor: makeCursor(last) };
  }
}

export class PostgresAgentState implements AgentStateStore {
  constructor(
    private readonly db: Database,
    // Read at every step of the loop (todos and notes go into each request): see AgentStateCache.
    private readonly cache: AgentStateCache,
  ) {}

  async get<T>(key: AgentStateKey, schema: z.ZodType<T>): Promise<T | undefined> {
    assertAgentStateKey(key);
    const document = await this.cache.read(key, async () => {
      const rows = await this.db.query<{ document: unknown }>(
        'SELECT document FROM legion.agent_state WHERE session_id = $1 AND kind = $2 AND agent_id = $3',
        [key.sessionId, key.kind, key.agentId],
        'legion-agent-state-get',
      );
      return rows[0] ? rows[0].document : undefined;
    });
    if (document === undefined) return undefined;
    // A copy: what the caller changes must not change the cached document.
    return readRecord(
      structuredClone(document),
      schema,
      sourceOf(key.sessionId, `${key.kind}/${key.agentId}`),
      `${key.kind} of ${key.agentId}`,
    );
  }

  async put(key: AgentStateKey, value: unknown): Promise<void> {
    assertAgentStateKey(key);
    const id = AgentStateCache.id(key);
    // Dropped before (a read under way keeps nothing) and after (nor does one that read the old row meanwhile).
    this.cache.drop(id);
    try {
      await this.db.queryNotifying(
        // Every process listening drops what it cached of the row, on commit.
        `WITH written AS (
           INSERT INTO legion.agent_state (session_id, kind, agent_id, document) VALUES ($1, $2, $3, $4::jsonb)
           ON CONFLICT (session_id, kind, agent_id) DO UPDATE SET document = EXCLUDED.document
           RETURNING 1)
         SELECT pg_notify('${AGENT_STATE_CHANNEL}', $5) FROM written`,
        [key.sessionId, key.kind, key.agentId, JSON.stringify(value ?? null), id],
        'legion-agent-state-put',
      );
    } finally {
      this.cache.drop(id);
    }
  }

  async list(sessionId: string, kind: string): Promise<string[]> {
    assertSessionName(sessionId);
    assertAgentStateKind(kind);
    const rows = await this.db.query<{ agent_id: string }>(
      'SELECT agent_id FROM legion.agent_state WHERE session_id = $1 AND kind = $2 ORDER BY agent_id',
      [sessionId, kind],
    );
    return rows.map((row) => row.agent_id);
  }

  async kinds(sessionId: string): Promise<string[]> {
    assertSessionName(sessionId);
    const rows = await this.db.query<{ kind: string }>('SELECT DISTINCT kind FROM legion.agent_state WHERE session_id = $1 ORDER BY kind', [
      sessionId,
    ]);
    return rows.map((row) => row.kind);
  }
}

export class PostgresArtifacts implements ArtifactStore {
  constructor(private readonly db: Database) {}

  async put(sessionId: string, name: string, content: string | Uint8Array): Promise<void> {
    assertArtifactName(sessionId, name);
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    await this.db.query(
      'INSERT INTO legion.artifacts (session_id, name, content) VALUES ($1, $2, $3) ON CONFLICT (session_id, name) DO UPDATE SET content = EXCLUDED.content',
      [sessionId, name, bytes],
    );
  }

  async get(sessionId: string, name: string): Promise<Uint8Array | undefined> {
    assertArtifactName(sessionId, name);
    const rows = await this.db.query<{ content: Buffer }>('SELECT content FROM legion.artifacts WHERE session_id = $1 AND name = $2', [
      sessionId,
      name,
    ]);
    const row = rows[0];
    return row ? new Uint8Array(row.content) : undefined;
  }

  async getText(sessionId: string, name: string): Promise<string | undefined> {
    const bytes = await this.get(sessionId, name);
    return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
  }

  async list(sessionId: string): Promise<ArtifactInfo[]> {
    assertSessionName(sessionId);
    const rows = await this.db.query<{ name: string; bytes: number }>(
      'SELECT name, octet_length(content) AS bytes FROM legion.artifacts WHERE session_id = $1 ORDER BY name',
      [sessionId],
    );
    return rows.map((row) => ({ name: row.name, bytes: Number(row.bytes) }));
  }
}
