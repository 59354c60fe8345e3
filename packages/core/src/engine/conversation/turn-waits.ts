import { waitingParticipants } from '../../session/index.js';
import type { ToolUseBlock } from '../../kernel/index.js';
import {
  QUESTION_RECORD_VERSION,
  type ApprovalView,
  type DelegationFrame,
  type QuestionState,
  type QuestionView,
  type SessionApprovals,
  type SessionQuestions,
} from '../../store/index.js';

/** What the waits of a session's turns are read from: its approvals, its questions, and a conversation's unanswered calls. */
export interface TurnWaits {
  approvals: SessionApprovals;
  questions: SessionQuestions;
  unanswered(conversationId: string): Promise<ToolUseBlock[]>;
}

/** The pending approvals and open questions these unanswered calls wait on, directly or through paused delegates. */
export async function pausedOn(
  session: TurnWaits,
  conversationId: string,
  unanswered: readonly ToolUseBlock[],
): Promise<{ requests: ApprovalView[]; questions: QuestionView[] }> {
  const state = await session.approvals.state();
  const waiting: { requests: ApprovalView[]; questions: QuestionView[] } = { requests: [], questions: [] };
  let asked: QuestionState | undefined;
  for (const toolUse of unanswered) {
    const request = state.forToolUse(conversationId, toolUse.id);
    if (request) {
      const view = state.view(request.id);
      if (view?.status === 'pending') waiting.requests.push(view);
      continue;
    }
    // A delegate paused on an approval, or on a question to a user further down.
    const delegate =
      state.delegateOf(conversationId, toolUse.id) ?? (asked ??= await session.questions.state()).delegateOf(conversationId, toolUse.id);
    if (delegate) {
      const below = await pausedOn(session, delegate, await session.unanswered(delegate));
      waiting.requests.push(...below.requests);
      waiting.questions.push(...below.questions);
      continue;
    }
    // A question to a user that nobody could be asked: the turn paused on it.
    const question = (asked ??= await session.questions.state()).questionFor(conversationId, toolUse.id);
    if (question?.status === 'pending') waiting.questions.push(question);
  }
  return waiting;
}

/**
 * A turn of `conversationId` ended without answering (cancelled or failed): what its delegation
 * tree still waits on is settled, so nothing of it runs later. Every pending approval requested
 * in that conversation or below it (its frames pass through it) is settled as rejected and marked
 * `cancelled`; every open question below it is withdrawn. First-wins, like any decision: an
 * answer given at the same moment either won (and the tree was told) or is refused.
 */
export async function settleEndedTree(
  session: TurnWaits,
  conversationId: string,
  ending: { status: 'failed' | 'cancelled'; code: string },
): Promise<void> {
  const below = (record: { conversationId: string; frames?: readonly DelegationFrame[] | undefined }): boolean =>
    record.conversationId === conversationId || (record.frames ?? []).some((frame) => frame.conversationId === conversationId);
  const why =
    ending.status === 'cancelled' ? 'the turn that asked was cancelled' : `the turn that asked ended with an error (${ending.code})`;
  const at = new Date().toISOString();
  for (const request of await session.approvals.pending()) {
    if (!below(request)) continue;
    const decidedBy = waitingParticipants(request.frames)[0] ?? request.approver;
    await session.approvals.decide([
      {
        kind: 'decision',
        version: 1,
        requestId: request.id,
        at,
        decision: 'rejected',
        reason: `${ending.status}: ${why} (${conversationId})`,
        decidedBy,
        cancelled: true,
      },
    ]);
  }
  const questions = await session.questions.state();
  for (const view of questions.list({ status: 'pending' })) {
    const question = questions.question(view.id);
    if (!question || !below(question)) continue;
    await session.questions.settle({
      kind: 'withdrawn',
      version: QUESTION_RECORD_VERSION,
      questionId: question.id,
      at,
      reason: `${why} (${conversationId})`,
    });
  }
}
