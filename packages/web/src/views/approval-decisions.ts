import { useState } from 'preact/hooks';
import type { ApprovalView } from '../api/wire.js';
import type { Answer } from './approval-choices.js';

export type Decide = (answers: Answer[]) => Promise<string | null>;

/**
 * The calls of one model response are decided together (the server rejects one left out), and
 * they wait together: same conversation, same requester.
 */
const batchOf = (approval: ApprovalView): string => `${approval.conversationId}\n${approval.requester}`;

/**
 * Answers staged per pending approval, sent once every call of the same response has one: what the
 * Approvals inbox and a conversation's cards share, so both decide a batch the same way.
 */
export function useApprovalDecisions(pending: readonly ApprovalView[], onDecide: Decide) {
  const [staged, setStaged] = useState<Record<string, Answer>>({});
  const [error, setError] = useState<string | null>(null);
  const undecidedIn = (batch: string, decided: Record<string, Answer>) =>
    pending.filter((approval) => batchOf(approval) === batch && !(approval.id in decided)).length;
  const stage = async (approval: ApprovalView, answer: Answer) => {
    const next = { ...staged, [answer.id]: answer };
    setStaged(next);
    const batch = pending.filter((candidate) => batchOf(candidate) === batchOf(approval));
    if (undecidedIn(batchOf(approval), next) > 0) return;
    const failure = await onDecide(batch.map((candidate) => next[candidate.id]!));
    setError(failure);
    if (failure !== null)
      setStaged((current) => Object.fromEntries(Object.entries(current).filter(([id]) => !batch.some((candidate) => candidate.id === id))));
  };
  return {
    staged,
    error,
    stage,
    /** How many other calls of this approval's response still wait for an answer. */
    waitingFor: (approval: ApprovalView) => undecidedIn(batchOf(approval), staged),
  };
}
