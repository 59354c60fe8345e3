import { randomBytes, randomUUID } from 'node:crypto';
import type { Collective } from '../collective/Collective.js';
import type { Participant } from '../collective/participant.js';
import type { ToolUseBlock } from '../message.js';
import { waitingParticipants } from '../session/delegation-stack.js';
import { APPROVAL_REQUEST_VERSION, type ApprovalAnswer, type ApprovalRequestRecord, type ApprovalView } from '../storage/approval-records.js';
import type { SessionApprovals } from '../storage/SessionApprovals.js';
import type { DelegationFrame } from '../storage/delegation-frame.js';
import { canApprove } from '../collective/approval-authority.js';
import type { ApprovalRule } from '../collective/approval-rule.js';
import { rememberedFields, type ApprovalRuleRecorder } from '../conversation/answer-approvals.js';

/**
 * How the gate asks a user now: every request of one model response at once.
 * Resolves with the answers and the surface (`medium`) they were given on, or
 * with nothing when no surface can answer now, and the turn pauses durably.
 */
export type AskUserForApprovals = (request: {
  approver: Participant;
  requests: ApprovalView[];
  signal: AbortSignal;
}) => Promise<{ answers: ApprovalAnswer[]; medium: string } | undefined>;

export interface ApprovalCall {
  toolUse: ToolUseBlock;
  reason: string;
}

export type GateOutcome =
  | { status: 'approved' }
  | { status: 'rejected'; reason: string }
  | { status: 'pending'; request: ApprovalView };

/**
 * Phase two of a model response: every call that needs approval is recorded
 * (durably), then put to the nearest participant up the chain with authority.
 * A user with a surface attached is asked at once, all calls in one batch;
 * anyone else is answered later, and the turn pauses until then.
 */
export class ApprovalGate {
  constructor(
    private readonly collective: Collective,
    private readonly askUser: AskUserForApprovals = async () => undefined,
    private readonly rules?: { recorder: ApprovalRuleRecorder; onProblem: (message: string) => void },
  ) {}

  async decide(
    calls: readonly ApprovalCall[],
    context: { requester: string; frames: readonly DelegationFrame[]; conversationId: string; sessionId: string; store: SessionApprovals; signal: AbortSignal },
  ): Promise<Map<string, GateOutcome>> {
    const chain = waitingParticipants(context.frames);
    const outcomes = new Map<string, GateOutcome>();
    const byApprover = new Map<string, ApprovalRequestRecord[]>();
    const batchId = randomUUID();
    const at = new Date().toISOString();
    for (const { toolUse, reason } of calls) {
      const approver = this.findApprover(context.requester, toolUse.name, chain);
      if (!approver) {
        outcomes.set(toolUse.id, {
          status: 'rejected',
          reason: `${toolUse.name} needs approval (${reason}), and no one in the chain (${chain.join(' → ')}) may give it. A policy must allow it instead.`,
        });
        continue;
      }
      const record: ApprovalRequestRecord = {
        kind: 'request',
        version: APPROVAL_REQUEST_VERSION,
        id: `apr_${randomBytes(6).toString('hex')}`,
        at,
        batchId,
        requester: context.requester,
        approver: approver.id,
        tool: toolUse.name,
        input: toolUse.input,
        toolUseId: toolUse.id,
        conversationId: context.conversationId,
        reason,
        // The whole stack, once: a resume after a restart reads who waited on this turn from here.
        frames: [...context.frames],
      };
      const group = byApprover.get(approver.id) ?? [];
      group.push(record);
      byApprover.set(approver.id, group);
    }
    if (byApprover.size === 0) return outcomes;
    for (const records of byApprover.values()) for (const record of records) await context.store.append(record);
    const stored = await context.store.state();

    for (const [approverId, records] of byApprover) {
      const approver = this.collective.require(approverId);
      const views = records.map((record) => stored.view(record.id)!);
      const answered = approver.type === 'user' ? await this.askUser({ approver, requests: views, signal: context.signal }) : undefined;
      if (!answered) {
        for (const view of views) outcomes.set(records.find((record) => record.id === view.id)!.toolUseId, { status: 'pending', request: view });
        continue;
      }
      const { answers, medium } = answered;
      for (const record of records) {
        const answer = answers.find((candidate) => candidate.id === record.id);
        // An unanswered request in a surface's reply is a rejection: silence never runs a tool.
        let approved = answer?.decision === 'approve';
        let reason = answer?.reason ?? (answer ? undefined : 'no answer was given');
        let decidedBy = approverId;
        const rule = approved && answer ? await this.ruleFor(record, answer, { decidedBy: approverId, sessionId: context.sessionId, medium }) : undefined;
        const claimed = await context.store.decide([
          {
            kind: 'decision',
            version: 1,
            requestId: record.id,
            at: new Date().toISOString(),
            decision: approved ? 'approved' : 'rejected',
            ...(reason ? { reason } : {}),
            decidedBy: approverId,
            ...(approved && answer ? rememberedFields(answer, rule) : {}),
            medium,
          },
        ]);
        // Only the decision that won makes its rule: of several surfaces or processes answering, the first.
        if (claimed.ok && rule) this.rules?.recorder.record(rule);
        // Someone else (another process, `legion approve`) decided while we asked: theirs is the decision.
        if (!claimed.ok) {
          const winner = claimed.taken[0]!;
          approved = winner.decision === 'approved';
          reason = winner.reason;
          decidedBy = winner.decidedBy;
        }
        outcomes.set(record.toolUseId, approved ? { status: 'approved' } : { status: 'rejected', reason: `${decidedBy} rejected it${reason ? `: ${reason}` : ''}` });
      }
    }
    return outcomes;
  }

  /** The rule an "approve always" answer makes; one that cannot be made (surfaces check first) approves this call only, and says so. */
  private async ruleFor(record: ApprovalRequestRecord, answer: ApprovalAnswer, context: { decidedBy: string; sessionId: string; medium: string }): Promise<ApprovalRule | undefined> {
    if (!this.rules) return undefined;
    const prepared = await this.rules.recorder.prepare(record, answer, context);
    if (prepared.ok) return prepared.rule;
    this.rules.onProblem(`${record.id} was approved once, without the "approve always" rule asked for: ${prepared.error}`);
    return undefined;
  }

  /** The nearest participant up the chain (the caller first) that may approve this. */
  findApprover(requester: string, tool: string, chain: readonly string[]): Participant | undefined {
    for (let index = chain.length - 1; index >= 0; index--) {
      const candidate = this.collective.get(chain[index]!);
      // Nobody is their own approver, whatever their authority says.
      if (candidate && candidate.id !== requester && candidate.status === 'active' && canApprove(candidate, requester, tool)) return candidate;
    }
    return undefined;
  }
}
