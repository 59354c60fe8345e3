import { ApprovalStore } from '../../ApprovalStore.js';
import { migrateRequestV1 } from '../../approval-migration.js';
import {
  StoredApprovalRecordSchema,
  type ApprovalDecisionRecord,
  type ApprovalLinkRecord,
  type ApprovalRecord,
} from '../../approval-records.js';
import { JsonlLog, type LogWarning } from '../../jsonl-log.js';
import type { WorkspacePaths } from '../../workspace-paths.js';
import { assertSessionName } from '../record-names.js';
import type { ApprovalLog, DecideResult } from '../session-backend.js';
import { OpenHandles } from '../../open-handles.js';

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
  private readonly stores = new OpenHandles<ApprovalStore>(OPEN_STORES);

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
    /** Version 1 link records so far, by the conversation waited on: what version 1 requests are migrated with. */
    const linksV1 = new Map<string, ApprovalLinkRecord[]>();
    for (const line of new JsonlLog(path, { onWarning: this.onWarning }).readForward(0).lines) {
      let raw: unknown;
      try {
        raw = JSON.parse(line.text);
      } catch {
        raw = undefined;
      }
      const parsed = StoredApprovalRecordSchema.safeParse(raw);
      if (!parsed.success) {
        this.onWarning({
          path,
          offset: line.offset,
          problem: `skipped an unreadable approval record (${parsed.error.issues[0]?.message ?? 'invalid'})`,
        });
        continue;
      }
      const record = parsed.data;
      // Older records are migrated as they are read, as ApprovalStore does; the file keeps them as written.
      if (record.kind === 'link') {
        linksV1.set(record.childConversationId, [...(linksV1.get(record.childConversationId) ?? []), record]);
        continue;
      }
      const current =
        record.kind === 'request' && record.version === 1 ? migrateRequestV1(record, (child) => linksV1.get(child) ?? []) : record;
      records.push(current);
      if (current.kind === 'decision') logged.add(current.requestId);
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
    this.stores.closeAll();
  }

  private store(sessionId: string): ApprovalStore {
    return this.stores.getOrOpen(sessionId, () => {
      assertSessionName(sessionId);
      return new ApprovalStore(this.paths.approvalsFile(sessionId), this.onWarning);
    });
  }
}
