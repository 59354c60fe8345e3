import { randomBytes, randomUUID } from 'node:crypto';
import type { Collective, Participant } from '../team/index.js';
import type { ToolUseBlock, TurnTrace } from '../kernel/index.js';
import { waitingParticipants } from '../session/index.js';
import { APPROVAL_REQUEST_VERSION, type ApprovalAnswer, type ApprovalRequestRecord, type ApprovalView } from '../store/index.js';
import type { SandboxNote } from '../kernel/index.js';
import type { SessionApprovals, DelegationFrame, ApprovalDecisionRecord } from '../store/index.js';
import { canApprove, standInApprover } from '../team/index.js';
import type { ApprovalRule } from './approval-rule.js';
import { rememberedFields, type ApprovalRuleRecorder } from './approval-rule-recorder.js';

/**
 * How the gate asks a user now: every request of one model response at once.
 * Resolves with the answers and the surface (`medium`) they were given on, or
 * with nothing when no surface can answer now, and the turn pauses durably.
 */
export type AskUserForApprovals = (request: {
  approver: Participant;
  requests: ApprovalView[];
  signal: AbortSignal;
  /**
   * The approvals log as the surfaces' rival: `recorded` resolves once every
   * request is decided by anyone (another process, `answerApprovals`), `claim`
   * records a surface's answers first-wins. When given, the decisions are in
   * the log by the time the ask resolves.
   */
  race?: ApprovalRace | undefined;
}) => Promise<{ answers: ApprovalAnswer[]; medium: string } | undefined>;

/** How an approval batch races the approvals log (the shape of `UserSurfaces`' `OfferRace`). */
export interface ApprovalRace {
  recorded(signal: AbortSignal): Promise<{ value: ApprovalAnswer[]; medium: string }>;
  claim(answers: ApprovalAnswer[], medium: string): Promise<{ ok: true } | { ok: false; value: ApprovalAnswer[]; medium: string }>;
}

export interface ApprovalCall {
  toolUse: ToolUseBlock;
  reason: string;
  /** Only a person may approve it (`PolicyDecision.personOnly`): agent approvers in the chain are passed over. */
  personOnly?: boolean | undefined;
  /** For a command a model wrote: whether it will run in the OS sandbox (the tool's `sandbox()`), shown on the card. */
  sandbox?: SandboxNote | undefined;
}

export type GateOutcome = { status: 'approved' } | { status: 'rejected'; reason: string } | { status: 'pending'; request: ApprovalView };

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
    context: {
      requester: string;
      frames: readonly DelegationFrame[];
      conversationId: string;
      sessionId: string;
      store: SessionApprovals;
      signal: AbortSignal;
      /** The requester's turn span: each request and its decision are events on it. */
      trace?: TurnTrace | undefined;
    },
  ): Promise<Map<string, GateOutcome>> {
    const chain = waitingParticipants(context.frames);
    const outcomes = new Map<string, GateOutcome>();
    const byApprover = new Map<string, ApprovalRequestRecord[]>();
    const batchId = randomUUID();
    const at = new Date().toISOString();
    for (const { toolUse, reason, personOnly, sandbox } of calls) {
      const approver = this.findApprover(context.requester, toolUse.name, chain, { personOnly });
      if (!approver) {
        outcomes.set(toolUse.id, {
          status: 'rejected',
          reason: personOnly
            ? `${toolUse.name} needs approval (${reason}), and only a person may give it; no person in the chain (${chain.join(' → ')}) may.`
            : `${toolUse.name} needs approval (${reason}), and no one in the chain (${chain.join(' → ')}) may give it. A policy must allow it instead.`,
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
        ...(sandbox !== undefined ? { sandbox: { kind: sandbox.kind, detail: sandbox.detail } } : {}),
        // The whole stack, once: a resume after a restart reads who waited on this turn from here.
        frames: [...context.frames],
      };
      const group = byApprover.get(approver.id) ?? [];
      group.push(record);
      byApprover.set(approver.id, group);
    }
    if (byApprover.size === 0) return outcomes;
    for (const records of byApprover.values()) {
      for (const record of records) {
        await context.store.append(record);
        context.trace?.approvalRequested(record);
      }
    }
    const stored = await context.store.state();

    for (const [approverId, records] of byApprover) {
      const approver = this.collective.require(approverId);
      const views = records.map((record) => stored.view(record.id)!);
      const race: ApprovalRace = {
        recorded: async (signal) => {
          const decisions = await context.store.decisionsOf(
            views.map((view) => view.id),
            signal,
          );
          return { value: decisions.map(answerOf), medium: mediumOf(decisions) };
        },
        claim: (answers, medium) =>
          this.claim(records, answers, { approverId, medium, sessionId: context.sessionId, store: context.store }),
      };
      let answered: Awaited<ReturnType<AskUserForApprovals>>;
      try {
        answered = approver.type === 'user' ? await this.askUser({ approver, requests: views, signal: context.signal, race }) : undefined;
      } catch (error) {
        // Cancelled while the surfaces asked: the requests are settled, so no later decision runs them.
        if (context.signal.aborted) await this.settleCancelled(records, chain, context);
        throw error;
      }
      if (context.signal.aborted) {
        await this.settleCancelled(records, chain, context);
        for (const record of records)
          outcomes.set(record.toolUseId, { status: 'rejected', reason: 'the turn was cancelled before anyone decided' });
        continue;
      }
      // Whoever answered (a surface here, another process, both racing), the log holds the one decision of each;
      // an ask that took no race leaves its answers for the gate to record.
      let decided = await context.store.state();
      const unrecorded = records.filter((record) => !decided.decision(record.id));
      if (answered && unrecorded.length > 0) {
        await this.claim(unrecorded, answered.answers, {
          approverId,
          medium: answered.medium,
          sessionId: context.sessionId,
          store: context.store,
        });
        decided = await context.store.state();
      }
      for (const record of records) {
        const decision = decided.decision(record.id);
        if (decision) context.trace?.approvalDecided(decision);
        if (!decision) {
          // Nobody could answer now: the turn pauses on it, durably. (Read after the ask: a decision another
          // process recorded while it ended, which did not resume this still-live turn, is taken here.)
          outcomes.set(record.toolUseId, { status: 'pending', request: views.find((view) => view.id === record.id)! });
          continue;
        }
        outcomes.set(
          record.toolUseId,
          decision.decision === 'approved'
            ? { status: 'approved' }
            : { status: 'rejected', reason: `${decision.decidedBy} rejected it${decision.reason ? `: ${decision.reason}` : ''}` },
        );
      }
    }
    return outcomes;
  }

  /**
   * The turn that asked was cancelled: each request nobody decided yet is settled as rejected and
   * marked `cancelled` (by whoever started the chain), first-wins like any decision, so an answer
   * given later (another surface, `legion approve`, another process) is refused and resumes nothing.
   */
  private async settleCancelled(
    records: readonly ApprovalRequestRecord[],
    chain: readonly string[],
    context: { store: SessionApprovals; signal: AbortSignal },
  ): Promise<void> {
    const reason = context.signal.reason instanceof Error ? context.signal.reason.message : String(context.signal.reason ?? 'cancelled');
    const decidedBy = chain[0] ?? 'user';
    for (const record of records) {
      await context.store.decide([
        {
          kind: 'decision',
          version: 1,
          requestId: record.id,
          at: new Date().toISOString(),
          decision: 'rejected',
          reason: `cancelled: the turn that asked was cancelled (${reason})`,
          decidedBy,
          cancelled: true,
        },
      ]);
    }
  }

  /**
   * Records a surface's answers, one first-wins decision per request. The
   * surface's answer counts if any of its decisions won; when every one was
   * taken first (another process decided them all), those decisions are the answer.
   */
  private async claim(
    records: readonly ApprovalRequestRecord[],
    answers: readonly ApprovalAnswer[],
    context: { approverId: string; medium: string; sessionId: string; store: SessionApprovals },
  ): Promise<{ ok: true } | { ok: false; value: ApprovalAnswer[]; medium: string }> {
    const { approverId, medium } = context;
    const taken: ApprovalDecisionRecord[] = [];
    for (const record of records) {
      const answer = answers.find((candidate) => candidate.id === record.id);
      // An unanswered request in a surface's reply is a rejection: silence never runs a tool.
      const approved = answer?.decision === 'approve';
      const reason = answer?.reason ?? (answer ? undefined : 'no answer was given');
      const rule =
        approved && answer
          ? await this.ruleFor(record, answer, { decidedBy: approverId, sessionId: context.sessionId, medium })
          : undefined;
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
      if (!claimed.ok) taken.push(claimed.taken[0]!);
    }
    if (taken.length < records.length) return { ok: true };
    return { ok: false, value: taken.map(answerOf), medium: mediumOf(taken) };
  }

  /** The rule an "approve always" answer makes; one that cannot be made (surfaces check first) approves this call only, and says so. */
  private async ruleFor(
    record: ApprovalRequestRecord,
    answer: ApprovalAnswer,
    context: { decidedBy: string; sessionId: string; medium: string },
  ): Promise<ApprovalRule | undefined> {
    if (!this.rules) return undefined;
    const prepared = await this.rules.recorder.prepare(record, answer, context);
    if (prepared.ok) return prepared.rule;
    this.rules.onProblem(`${record.id} was approved once, without the "approve always" rule asked for: ${prepared.error}`);
    return undefined;
  }

  /** The nearest participant up the chain (the caller first) that may approve this; a person, when only a person may. */
  findApprover(
    requester: string,
    tool: string,
    chain: readonly string[],
    options: { personOnly?: boolean | undefined } = {},
  ): Participant | undefined {
    for (let index = chain.length - 1; index >= 0; index--) {
      const candidate = this.collective.get(chain[index]!);
      if (options.personOnly && candidate?.type !== 'user') continue;
      // Nobody is their own approver, whatever their authority says.
      if (candidate && candidate.id !== requester && candidate.status === 'active' && canApprove(candidate, requester, tool))
        return candidate;
    }
    // A chain started by a stand-in (an MCP client) that may not approve this: its human decides.
    return standInApprover(
      chain[0] === undefined ? undefined : this.collective.get(chain[0]),
      (id) => this.collective.get(id),
      requester,
      tool,
    );
  }
}

/** A recorded decision as the answer it stands for (what a surface that lost is shown instead of its own). */
function answerOf(decision: ApprovalDecisionRecord): ApprovalAnswer {
  return {
    id: decision.requestId,
    decision: decision.decision === 'approved' ? 'approve' : 'reject',
    ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
  };
}

/** The surface(s) decisions were given on, as `AnsweredElsewhereError` names them. */
function mediumOf(decisions: readonly ApprovalDecisionRecord[]): string {
  const media = [...new Set(decisions.map((decision) => decision.medium ?? decision.decidedBy))];
  return media.join(', ') || 'another process';
}
