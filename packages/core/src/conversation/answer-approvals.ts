import type { Collective } from '../collective/Collective.js';
import type { ToolUseBlock } from '../message.js';
import type { AnswerOutcome, ApprovalFrame, TurnResult } from '../session/turn.js';
import type { ApprovalAnswer } from '../storage/approval-records.js';
import type { ApprovalStore } from '../storage/ApprovalStore.js';
import { canApprove } from '../collective/approval-authority.js';

/** What answering needs of a session. */
export interface AnsweringSession {
  readonly approvals: ApprovalStore;
  unanswered(conversationId: string): ToolUseBlock[];
  resumeConversation(conversationId: string, frames?: readonly ApprovalFrame[]): Promise<TurnResult>;
}

/**
 * Records decisions and resumes what they unblock. All answers are checked
 * first (known, still pending, the decider has authority); one bad answer
 * writes nothing. Each paused turn is then resumed from the highest
 * conversation still waiting on it, so replies travel back up to whoever waits.
 */
export async function answerApprovals(
  session: AnsweringSession,
  collective: Collective,
  answers: readonly ApprovalAnswer[],
  decidedBy: string,
  options: { medium?: string | undefined } = {},
): Promise<AnswerOutcome> {
  const store = session.approvals;
  const decider = collective.get(decidedBy);
  const problems: string[] = [];
  const seen = new Set<string>();
  if (answers.length === 0) problems.push('No decisions were given.');
  for (const answer of answers) {
    const request = store.request(answer.id);
    if (seen.has(answer.id)) problems.push(`${answer.id} is answered twice.`);
    seen.add(answer.id);
    if (!request) {
      const pending = store.pending().map((candidate) => candidate.id);
      problems.push(`There is no approval request "${answer.id}" (pending: ${pending.join(', ') || 'none'}).`);
      continue;
    }
    const decision = store.decision(answer.id);
    if (decision) {
      problems.push(`${answer.id} was already ${decision.decision} by ${decision.decidedBy} at ${decision.at}.`);
      continue;
    }
    if (decidedBy === request.requester) {
      problems.push(`${decidedBy} asked for ${answer.id} and cannot decide its own request; ${request.approver} decides.`);
    } else if (!decider || !canApprove(decider, request.requester, request.tool)) {
      problems.push(`${decidedBy} has no authority to approve ${request.requester}'s ${request.tool} (${answer.id}); ${request.approver} decides.`);
    } else if (decider.type !== 'user' && decidedBy !== request.approver) {
      // Agents decide only what was addressed to them; a user, at the top of every chain, may step in.
      problems.push(`${answer.id} is addressed to ${request.approver}, not to ${decidedBy}; ${request.approver} decides.`);
    }
  }
  if (problems.length > 0) return { status: 'error', error: `Nothing was recorded. ${problems.join(' ')}` };

  const at = new Date().toISOString();
  const claimed = store.decide(
    answers.map((answer) => {
      const approved = answer.decision === 'approve';
      return {
        kind: 'decision' as const,
        version: 1 as const,
        requestId: answer.id,
        at,
        decision: approved ? ('approved' as const) : ('rejected' as const),
        ...(answer.reason ? { reason: answer.reason } : {}),
        decidedBy,
        ...(approved && answer.always ? { always: true } : {}),
        ...(options.medium ? { medium: options.medium } : {}),
      };
    }),
  );
  if (!claimed.ok) {
    const taken = claimed.taken.map((decision) => `${decision.requestId} was already ${decision.decision} by ${decision.decidedBy} at ${decision.at}.`);
    return { status: 'error', error: `Nothing was recorded. ${taken.join(' ')}` };
  }
  const roots = new Set(answers.map((answer) => resumeRoot(session, store.request(answer.id)!.conversationId)));
  const resumed: TurnResult[] = [];
  for (const root of roots) resumed.push(await session.resumeConversation(root));
  return { status: 'answered', resumed };
}

/** Climbs from a paused conversation to the highest one whose communicate call still waits on it. */
function resumeRoot(session: AnsweringSession, conversationId: string): string {
  let current = conversationId;
  for (let depth = 0; depth < 64; depth++) {
    const parent = session.approvals
      .linksTo(current)
      .find((link) => session.unanswered(link.parentConversationId).some((toolUse) => toolUse.id === link.toolUseId));
    if (!parent) break;
    current = parent.parentConversationId;
  }
  return current;
}
