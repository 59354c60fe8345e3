import { JsonlLog, type LogWarning } from '../storage/jsonl-log.js';
import {
  ApprovalRecordSchema,
  type ApprovalDecisionRecord,
  type ApprovalLinkRecord,
  type ApprovalRecord,
  type ApprovalRequestRecord,
  type ApprovalView,
} from './approval-records.js';

/**
 * A session's `approvals.jsonl`: every request, decision and link, appended.
 * The state is the fold of the file, re-read when another process has written to it.
 */
export class ApprovalStore {
  private readonly log: JsonlLog;
  private readonly requests = new Map<string, ApprovalRequestRecord>();
  private readonly decisions = new Map<string, ApprovalDecisionRecord>();
  /** Child conversation id → the communicate calls that wait on it. */
  private readonly links = new Map<string, ApprovalLinkRecord[]>();
  private seen = -1;

  constructor(path: string, onWarning?: (warning: LogWarning) => void) {
    this.log = new JsonlLog(path, { onWarning });
  }

  append(record: ApprovalRecord): void {
    this.refresh();
    this.log.append(record);
    this.apply(record);
    this.seen = this.log.diskSize();
  }

  request(id: string): ApprovalRequestRecord | undefined {
    this.refresh();
    return this.requests.get(id);
  }

  decision(id: string): ApprovalDecisionRecord | undefined {
    this.refresh();
    return this.decisions.get(id);
  }

  allRequests(): ApprovalRequestRecord[] {
    this.refresh();
    return [...this.requests.values()];
  }

  pending(): ApprovalRequestRecord[] {
    this.refresh();
    return [...this.requests.values()].filter((request) => !this.decisions.has(request.id));
  }

  /** The request for a tool call, if that call asked for approval. */
  forToolUse(conversationId: string, toolUseId: string): ApprovalRequestRecord | undefined {
    this.refresh();
    for (const request of this.requests.values()) if (request.conversationId === conversationId && request.toolUseId === toolUseId) return request;
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

  /** The conversation a communicate call waits on, if it was recorded. */
  linkFrom(parentConversationId: string, toolUseId: string): ApprovalLinkRecord | undefined {
    this.refresh();
    for (const list of this.links.values()) {
      const link = list.find((candidate) => candidate.parentConversationId === parentConversationId && candidate.toolUseId === toolUseId);
      if (link) return link;
    }
    return undefined;
  }

  linksTo(childConversationId: string): ApprovalLinkRecord[] {
    this.refresh();
    return this.links.get(childConversationId) ?? [];
  }

  list(options: { status?: ApprovalView['status'] } = {}): ApprovalView[] {
    this.refresh();
    const views = [...this.requests.values()].map((request): ApprovalView => {
      const decision = this.decisions.get(request.id);
      return {
        id: request.id,
        at: request.at,
        requester: request.requester,
        approver: request.approver,
        tool: request.tool,
        input: request.input,
        reason: request.reason,
        conversationId: request.conversationId,
        status: decision ? decision.decision : 'pending',
        decidedBy: decision?.decidedBy,
        decidedAt: decision?.at,
        decisionReason: decision?.reason,
      };
    });
    return options.status ? views.filter((view) => view.status === options.status) : views;
  }

  close(): void {
    this.log.close();
  }

  private refresh(): void {
    const size = this.log.diskSize();
    if (size === this.seen) return;
    this.requests.clear();
    this.decisions.clear();
    this.links.clear();
    for (const line of this.log.readForward(0).lines) {
      let raw: unknown;
      try {
        raw = JSON.parse(line.text);
      } catch {
        continue;
      }
      const parsed = ApprovalRecordSchema.safeParse(raw);
      if (parsed.success) this.apply(parsed.data);
    }
    this.seen = size;
  }

  private apply(record: ApprovalRecord): void {
    if (record.kind === 'request') this.requests.set(record.id, record);
    else if (record.kind === 'decision') {
      // The first decision stands; a late second one (another process) changes nothing.
      if (!this.decisions.has(record.requestId)) this.decisions.set(record.requestId, record);
    } else {
      const list = this.links.get(record.childConversationId) ?? [];
      list.push(record);
      this.links.set(record.childConversationId, list);
    }
  }
}
