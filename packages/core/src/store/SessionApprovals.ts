import {
  approvalView,
  type ApprovalDecisionRecord,
  type ApprovalRecord,
  type ApprovalRequestRecord,
  type ApprovalView,
} from './records/approval-records.js';
import type { ApprovalLog, DecideResult } from './session-backend.js';
import { waitForRecord, type WatchSession } from './fs/wait-for-record.js';

/**
 * The approvals of one session as they stood at one read: requests, the
 * decision of each (the first one stands), and which conversation each
 * waiting communicate call waits on (from the requests' frames).
 */
export class ApprovalState {
  private readonly requests = new Map<string, ApprovalRequestRecord>();
  private readonly decisions = new Map<string, ApprovalDecisionRecord>();
  /** `<conversation id> <tool_use id>` of a waiting communicate call → the conversation it waits on. */
  private readonly delegates = new Map<string, string>();

  constructor(records: readonly ApprovalRecord[]) {
    for (const record of records) {
      if (record.kind === 'request') {
        this.requests.set(record.id, record);
        // Each frame's communicate call waits on the next frame's conversation; the last one on the requester's.
        record.frames.forEach((frame, index) => {
          if (frame.toolUseId)
            this.delegates.set(
              `${frame.conversationId}\u0000${frame.toolUseId}`,
              record.frames[index + 1]?.conversationId ?? record.conversationId,
            );
        });
      } else if (!this.decisions.has(record.requestId)) {
        // The first decision stands; a late second one (another process) changes nothing.
        this.decisions.set(record.requestId, record);
      }
    }
  }

  request(id: string): ApprovalRequestRecord | undefined {
    return this.requests.get(id);
  }

  decision(id: string): ApprovalDecisionRecord | undefined {
    return this.decisions.get(id);
  }

  pending(): ApprovalRequestRecord[] {
    return [...this.requests.values()].filter((request) => !this.decisions.has(request.id));
  }

  /** The request for a tool call, if that call asked for approval. */
  forToolUse(conversationId: string, toolUseId: string): ApprovalRequestRecord | undefined {
    for (const request of this.requests.values())
      if (request.conversationId === conversationId && request.toolUseId === toolUseId) return request;
    return undefined;
  }

  /** Tools a participant was told "always allow" for in this session. */
  grants(participantId: string): Set<string> {
    const tools = new Set<string>();
    for (const decision of this.decisions.values()) {
      const request = this.requests.get(decision.requestId);
      if (decision.always && decision.decision === 'approved' && request?.requester === participantId) tools.add(request.tool);
    }
    return tools;
  }

  /** The conversation a communicate call waits on, if an approval request was made beneath it. */
  delegateOf(conversationId: string, toolUseId: string): string | undefined {
    return this.delegates.get(`${conversationId}\u0000${toolUseId}`);
  }

  view(id: string): ApprovalView | undefined {
    const request = this.requests.get(id);
    return request && this.toView(request);
  }

  list(options: { status?: ApprovalView['status'] } = {}): ApprovalView[] {
    const views = [...this.requests.values()].map((request) => this.toView(request));
    return options.status ? views.filter((view) => view.status === options.status) : views;
  }

  private toView(request: ApprovalRequestRecord): ApprovalView {
    return approvalView(request, this.decisions.get(request.id));
  }
}

/**
 * A session's approval requests and decisions, through the backend's
 * approvals log (the file backend: `approvals.jsonl` and its claim files).
 * Every question reads the log anew, so decisions made by other processes are
 * seen; a caller asking several questions takes one `state()` and asks it.
 * `ApprovalState` is the one fold of that log: everything that asks about
 * approvals (tools, surfaces, resumes) asks it.
 */
export class SessionApprovals {
  constructor(
    private readonly log: ApprovalLog,
    private readonly sessionId: string,
    /** Hears every record this session wrote, once it is stored (a UI's approval events come from it). */
    private readonly onRecorded?: (record: ApprovalRecord, state: () => Promise<ApprovalState>) => Promise<void> | void,
    /** The backend's change hint for this session: `decisionsOf` reads at once on it. */
    private readonly watch?: WatchSession,
  ) {}

  async state(): Promise<ApprovalState> {
    return new ApprovalState(await this.log.read(this.sessionId));
  }

  async append(record: ApprovalRequestRecord): Promise<void> {
    await this.log.append(this.sessionId, record);
    await this.onRecorded?.(record, () => this.state());
  }

  /** Records the decisions if, and only if, none of their requests is decided yet, across processes: the first decide wins. */
  async decide(records: readonly ApprovalDecisionRecord[]): Promise<DecideResult> {
    const result = await this.log.claim(this.sessionId, records);
    if (result.ok) for (const record of records) await this.onRecorded?.(record, () => this.state());
    return result;
  }

  /**
   * Resolves with the decisions of these requests once every one of them is
   * decided, by any process (a surface racing the log waits on this); rejects when `signal` aborts.
   */
  decisionsOf(ids: readonly string[], signal: AbortSignal): Promise<ApprovalDecisionRecord[]> {
    return waitForRecord(
      async () => {
        const state = await this.state();
        const decisions = ids.map((id) => state.decision(id));
        return decisions.every((decision) => decision !== undefined) ? (decisions as ApprovalDecisionRecord[]) : undefined;
      },
      { watch: this.watch, signal },
    );
  }

  async request(id: string): Promise<ApprovalRequestRecord | undefined> {
    return (await this.state()).request(id);
  }

  async decision(id: string): Promise<ApprovalDecisionRecord | undefined> {
    return (await this.state()).decision(id);
  }

  async pending(): Promise<ApprovalRequestRecord[]> {
    return (await this.state()).pending();
  }

  async grants(participantId: string): Promise<Set<string>> {
    return (await this.state()).grants(participantId);
  }

  async list(options: { status?: ApprovalView['status'] } = {}): Promise<ApprovalView[]> {
    return (await this.state()).list(options);
  }
}
