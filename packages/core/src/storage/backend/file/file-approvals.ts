import { ApprovalStore } from '../../ApprovalStore.js';
import { ApprovalRecordSchema, type ApprovalDecisionRecord, type ApprovalRecord } from '../../approval-records.js';
import { JsonlLog, type LogWarning } from '../../jsonl-log.js';
import type { WorkspacePaths } from '../../workspace-paths.js';
import { assertSessionName } from '../record-names.js';
import type { ApprovalLog, DecideResult } from '../session-backend.js';

/** Approval stores kept open; a long-lived process touching many sessions closes the oldest. */
const OPEN_STORES = 16;

/**
 * `sessions/<id>/approvals.jsonl`, through the `ApprovalStore` Legion has always
 * used: a decision is claimed by the exclusive creation of
 * `approval-decisions/<request>.json` before it is logged, so the first decide
 * wins across processes, and a claim whose process died before logging it
 * still counts.
 */
export class FileApprovals implements ApprovalLog {
  private readonly stores = new Map<string, ApprovalStore>();

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly onWarning: (warning: LogWarning) => void,
  ) {}

  async append(sessionId: string, record: ApprovalRecord): Promise<void> {
    this.store(sessionId).append(record);
  }

  async decide(sessionId: string, decisions: readonly ApprovalDecisionRecord[]): Promise<DecideResult> {
    return this.store(sessionId).decide(decisions);
  }

  async read(sessionId: string): Promise<ApprovalRecord[]> {
    const store = this.store(sessionId);
    const path = this.paths.approvalsFile(sessionId);
    const records: ApprovalRecord[] = [];
    const logged = new Set<string>();
    for (const line of new JsonlLog(path, { onWarning: this.onWarning }).readForward(0).lines) {
      let raw: unknown;
      try {
        raw = JSON.parse(line.text);
      } catch {
        raw = undefined;
      }
      const parsed = ApprovalRecordSchema.safeParse(raw);
      if (!parsed.success) {
        this.onWarning({ path, offset: line.offset, problem: `skipped an unreadable approval record (${parsed.error.issues[0]?.message ?? 'invalid'})` });
        continue;
      }
      records.push(parsed.data);
      if (parsed.data.kind === 'decision') logged.add(parsed.data.requestId);
    }
    // A decision claimed by a process that died before logging it is still the decision.
    for (const record of [...records]) {
      if (record.kind !== 'request' || logged.has(record.id)) continue;
      const claimed = store.decision(record.id);
      if (claimed) records.push(claimed);
    }
    return records;
  }

  close(): void {
    for (const store of this.stores.values()) store.close();
    this.stores.clear();
  }

  private store(sessionId: string): ApprovalStore {
    let store = this.stores.get(sessionId);
    if (store) return store;
    assertSessionName(sessionId);
    if (this.stores.size >= OPEN_STORES) {
      const [oldestId, oldest] = this.stores.entries().next().value as [string, ApprovalStore];
      oldest.close();
      this.stores.delete(oldestId);
    }
    store = new ApprovalStore(this.paths.approvalsFile(sessionId), this.onWarning);
    this.stores.set(sessionId, store);
    return store;
  }
}
