import type { z } from 'zod';
import {
  ApprovalDecisionRecordSchema,
  ApprovalRecordSchema,
  type ApprovalDecisionRecord,
  type ApprovalRecord,
} from '../../approval-records.js';
import { UsageRecordSchema, type UsageRecord } from '../../usage-summary.js';
import { assertAgentStateKey, assertAgentStateKind, assertArtifactName, assertSessionName } from '../record-names.js';
import type {
  AgentStateKey,
  AgentStateStore,
  ApprovalLog,
  ArtifactInfo,
  ArtifactStore,
  DecideResult,
  LogCursor,
  StorageWarning,
  UsageLedgerStore,
} from '../session-backend.js';
import { cursorPosition, makeCursor } from '../log-cursor.js';
import type { MemorySessionStore } from './MemorySessionStore.js';
import { parseRecord, readRecord } from './memory-records.js';

export class MemoryApprovals implements ApprovalLog {
  constructor(
    private readonly store: MemorySessionStore,
    private readonly warn: (warning: StorageWarning) => void,
  ) {}

  async append(sessionId: string, record: ApprovalRecord): Promise<void> {
    this.records(sessionId).push(JSON.stringify(record));
    this.store.changed(sessionId);
  }

  async decide(sessionId: string, decisions: readonly ApprovalDecisionRecord[]): Promise<DecideResult> {
    const records = this.records(sessionId);
    // Checked and claimed with no await between: one step for every caller on the store.
    const taken: ApprovalDecisionRecord[] = [];
    for (const decision of decisions) {
      const won = this.store.decisions.get(`${sessionId}/${decision.requestId}`);
      if (won !== undefined)
        taken.push(readRecord(won, ApprovalDecisionRecordSchema, `memory:sessions/${sessionId}/approvals`, 'approval decision'));
    }
    if (taken.length > 0) return { ok: false, taken };
    for (const decision of decisions) {
      const text = JSON.stringify(decision);
      this.store.decisions.set(`${sessionId}/${decision.requestId}`, text);
      records.push(text);
    }
    this.store.changed(sessionId);
    return { ok: true };
  }

  async read(sessionId: string): Promise<ApprovalRecord[]> {
    const records: ApprovalRecord[] = [];
    this.records(sessionId).forEach((text, index) => {
      const parsed = parseRecord(text, ApprovalRecordSchema);
      if (parsed.ok) records.push(parsed.value);
      else
        this.warn({
          source: `memory:sessions/${sessionId}/approvals`,
          offset: index,
          problem: `skipped an unreadable approval record (${parsed.problem})`,
        });
    });
    return records;
  }

  private records(sessionId: string): string[] {
    assertSessionName(sessionId);
    let records = this.store.approvals.get(sessionId);
    if (!records) this.store.approvals.set(sessionId, (records = []));
    return records;
  }
}

export class MemoryUsage implements UsageLedgerStore {
  constructor(
    private readonly store: MemorySessionStore,
    private readonly warn: (warning: StorageWarning) => void,
  ) {}

  async append(sessionId: string, record: UsageRecord): Promise<void> {
    assertSessionName(sessionId);
    const records = this.store.usage.get(sessionId) ?? [];
    records.push(JSON.stringify(record));
    this.store.usage.set(sessionId, records);
  }

  async read(sessionId: string): Promise<UsageRecord[]> {
    return (await this.readSince(sessionId)).records;
  }

  async readSince(sessionId: string, cursor?: LogCursor): Promise<{ records: UsageRecord[]; cursor: LogCursor }> {
    assertSessionName(sessionId);
    const from = cursor === undefined ? 0 : cursorPosition('memory', cursor);
    const stored = this.store.usage.get(sessionId) ?? [];
    const records: UsageRecord[] = [];
    for (let index = from; index < stored.length; index++) {
      const parsed = parseRecord(stored[index]!, UsageRecordSchema);
      if (parsed.ok) records.push(parsed.value);
      else
        this.warn({
          source: `memory:sessions/${sessionId}/usage`,
          offset: index,
          problem: `skipped an unreadable usage record (${parsed.problem})`,
        });
    }
    return { records, cursor: makeCursor('memory', Math.max(from, stored.length)) };
  }
}

export class MemoryAgentState implements AgentStateStore {
  constructor(private readonly store: MemorySessionStore) {}

  async get<T>(key: AgentStateKey, schema: z.ZodType<T>): Promise<T | undefined> {
    assertAgentStateKey(key);
    const text = this.store.agentState.get(keyOf(key));
    if (text === undefined) return undefined;
    return readRecord(text, schema, `memory:sessions/${keyOf(key)}`, `${key.kind} of ${key.agentId}`);
  }

  async put(key: AgentStateKey, value: unknown): Promise<void> {
    assertAgentStateKey(key);
    this.store.agentState.set(keyOf(key), JSON.stringify(value));
  }

  async list(sessionId: string, kind: string): Promise<string[]> {
    assertSessionName(sessionId);
    assertAgentStateKind(kind);
    const prefix = `${sessionId}/${kind}/`;
    return [...this.store.agentState.keys()]
      .filter((key) => key.startsWith(prefix))
      .map((key) => key.slice(prefix.length))
      .sort();
  }

  async kinds(sessionId: string): Promise<string[]> {
    assertSessionName(sessionId);
    const prefix = `${sessionId}/`;
    const kinds = new Set<string>();
    for (const key of this.store.agentState.keys()) if (key.startsWith(prefix)) kinds.add(key.slice(prefix.length).split('/')[0] ?? '');
    return [...kinds].sort();
  }
}

function keyOf(key: AgentStateKey): string {
  return `${key.sessionId}/${key.kind}/${key.agentId}`;
}

export class MemoryArtifacts implements ArtifactStore {
  constructor(private readonly store: MemorySessionStore) {}

  async put(sessionId: string, name: string, content: string | Uint8Array): Promise<void> {
    assertArtifactName(sessionId, name);
    let artifacts = this.store.artifacts.get(sessionId);
    if (!artifacts) this.store.artifacts.set(sessionId, (artifacts = new Map()));
    // A copy: the caller may reuse its buffer.
    artifacts.set(name, typeof content === 'string' ? new Uint8Array(Buffer.from(content, 'utf8')) : new Uint8Array(content));
  }

  async get(sessionId: string, name: string): Promise<Uint8Array | undefined> {
    assertArtifactName(sessionId, name);
    const bytes = this.store.artifacts.get(sessionId)?.get(name);
    return bytes === undefined ? undefined : new Uint8Array(bytes);
  }

  async getText(sessionId: string, name: string): Promise<string | undefined> {
    const bytes = await this.get(sessionId, name);
    return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
  }

  async list(sessionId: string): Promise<ArtifactInfo[]> {
    assertSessionName(sessionId);
    return [...(this.store.artifacts.get(sessionId) ?? new Map<string, Uint8Array>())]
      .map(([name, bytes]) => ({ name, bytes: bytes.byteLength }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
