import { existsSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeJsonIfAbsent } from './atomic-json.js';
import { JsonlLog, type LogWarning } from './jsonl-log.js';
import { migrateRequestV1 } from './approval-migration.js';
import {
  ApprovalDecisionRecordSchema,
  approvalView,
  StoredApprovalRecordSchema,
  type ApprovalDecisionRecord,
  type ApprovalLinkRecord,
  type ApprovalRecord,
  type ApprovalRequestRecord,
  type ApprovalView,
  type StoredApprovalRecord,
} from './approval-records.js';
import { readRegularFileSync } from './regular-file.js';

/**
 * A session's `approvals.jsonl`: every request and decision, appended.
 * The state is the fold of the file, re-read when another process has written to it.
 * Records of older versions are migrated as they are read (the file keeps them as written).
 *
 * A decision is claimed before it is logged: `approval-decisions/<id>.json` is
 * created exclusively, so of any number of deciders in any number of
 * processes exactly one wins, and the claim is the decision even if its
 * process dies before appending it to the log.
 */
export class ApprovalStore {
  private readonly log: JsonlLog;
  private readonly requests = new Map<string, ApprovalRequestRecord>();
  private readonly decisions = new Map<string, ApprovalDecisionRecord>();
  /** `<conversation id> <tool_use id>` of a waiting communicate call → the conversation it waits on, from the requests' frames. */
  private readonly delegates = new Map<string, string>();
  /** Version 1 link records seen so far in the fold: what version 1 requests are migrated with. */
  private readonly linksV1 = new Map<string, ApprovalLinkRecord[]>();
  private seen = -1;

  private readonly claims: string;

  /** `onRecorded` hears every record this store appended, once it is in the log (a UI's approval events come from it). */
  constructor(
    path: string,
    onWarning?: (warning: LogWarning) => void,
    private readonly onRecorded?: (record: ApprovalRecord) => void,
  ) {
    this.log = new JsonlLog(path, { onWarning });
    this.claims = join(dirname(path), 'approval-decisions');
  }

  /**
   * Records decisions if, and only if, none of them is decided yet, atomically
   * across processes: all are claimed or none is. Returns the decisions that
   * were already there when any claim was lost.
   */
  decide(records: readonly ApprovalDecisionRecord[]): { ok: true } | { ok: false; taken: ApprovalDecisionRecord[] } {
    const won: ApprovalDecisionRecord[] = [];
    const taken: ApprovalDecisionRecord[] = [];
    for (const record of records) {
      if (writeJsonIfAbsent(this.claimPath(record.requestId), record)) won.push(record);
      else taken.push(this.decision(record.requestId) ?? record);
    }
    if (taken.length > 0) {
      // Nobody else can hold these claims (they were ours), so giving them back is safe.
      for (const record of won) unlinkSync(this.claimPath(record.requestId));
      return { ok: false, taken };
    }
    for (const record of won) this.append(record);
    return { ok: true };
  }

  append(record: ApprovalRecord): void {
    this.refresh();
    this.log.append(record);
    this.apply(record);
    this.seen = this.log.diskSize();
    this.onRecorded?.(record);
  }

  request(id: string): ApprovalRequestRecord | undefined {
    this.refresh();
    return this.requests.get(id);
  }

  decision(id: string): ApprovalDecisionRecord | undefined {
    this.refresh();
    return this.decisions.get(id) ?? this.claimed(id);
  }

  pending(): ApprovalRequestRecord[] {
    this.refresh();
    return [...this.requests.values()].filter((request) => !this.decisions.has(request.id) && !existsSync(this.claimPath(request.id)));
  }

  /** The request for a tool call, if that call asked for approval. */
  forToolUse(conversationId: string, toolUseId: string): ApprovalRequestRecord | undefined {
    this.refresh();
    for (const request of this.requests.values())
      if (request.conversationId === conversationId && request.toolUseId === toolUseId) return request;
    return undefined;
  }

  /** Tools a participant was told "always allow" for in this session. */
  grants(participantId: string): Set<string> {
    this.refresh();
    const tools = new Set<string>();
    for (const decision of this.decisions.values()) {
      const request = this.requests.get(decision.requestId);
      if (decision.always && decision.decision === 'approved' && request?.requester === participantId) tools.add(request.tool);
    }
    return tools;
  }

  /** The conversation a communicate call waits on, if an approval request was made beneath it. */
  delegateOf(conversationId: string, toolUseId: string): string | undefined {
    this.refresh();
    return this.delegates.get(`${conversationId}\u0000${toolUseId}`);
  }

  list(options: { status?: ApprovalView['status'] } = {}): ApprovalView[] {
    this.refresh();
    const views = [...this.requests.values()].map((request) =>
      approvalView(request, this.decisions.get(request.id) ?? this.claimed(request.id)),
    );
    return options.status ? views.filter((view) => view.status === options.status) : views;
  }

  close(): void {
    this.log.close();
  }

  private claimPath(requestId: string): string {
    return join(this.claims, `${encodeURIComponent(requestId)}.json`);
  }

  /** A decision whose claim exists but whose log line does not (its process died in between). */
  private claimed(requestId: string): ApprovalDecisionRecord | undefined {
    if (!this.requests.has(requestId)) return undefined;
    let text: string;
    try {
      text = readRegularFileSync(this.claimPath(requestId)).toString('utf8');
    } catch {
      return undefined;
    }
    try {
      const parsed = ApprovalDecisionRecordSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  private refresh(): void {
    const size = this.log.diskSize();
    if (size === this.seen) return;
    this.requests.clear();
    this.decisions.clear();
    this.delegates.clear();
    this.linksV1.clear();
    for (const line of this.log.readForward(0).lines) {
      let raw: unknown;
      try {
        raw = JSON.parse(line.text);
      } catch {
        continue;
      }
      const parsed = StoredApprovalRecordSchema.safeParse(raw);
      if (parsed.success) this.apply(this.migrate(parsed.data));
    }
    this.seen = size;
  }

  /** Today's records pass; a version 1 request gets its frames from the links before it; links themselves are only kept for that. */
  private migrate(record: StoredApprovalRecord): ApprovalRecord | undefined {
    if (record.kind === 'link') {
      const list = this.linksV1.get(record.childConversationId) ?? [];
      list.push(record);
      this.linksV1.set(record.childConversationId, list);
      return undefined;
    }
    if (record.kind === 'request' && record.version === 1) return migrateRequestV1(record, (child) => this.linksV1.get(child) ?? []);
    return record;
  }

  private apply(record: ApprovalRecord | undefined): void {
    if (record?.kind === 'request') {
      this.requests.set(record.id, record);
      // Each frame's communicate call waits on the next frame's conversation; the last one on the requester's.
      record.frames.forEach((frame, index) => {
        if (frame.toolUseId)
          this.delegates.set(
            `${frame.conversationId}\u0000${frame.toolUseId}`,
            record.frames[index + 1]?.conversationId ?? record.conversationId,
          );
      });
    } else if (record?.kind === 'decision') {
      // The first decision stands; a late second one (another process) changes nothing.
      if (!this.decisions.has(record.requestId)) this.decisions.set(record.requestId, record);
    }
  }
}
