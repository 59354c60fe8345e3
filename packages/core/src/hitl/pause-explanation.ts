import type { ApprovalView, QuestionView } from '../store/index.js';

/**
 * Why a turn stopped and how it goes on, the same on every surface: what waits (each request, who
 * decides it) and the command any terminal answers it with. A surface adds how to answer where it
 * is (`/approvals`, a button, `answer_approval`). The strings carry what the model chose (tool
 * input, reasons): a surface makes them inert for its medium before showing them.
 */
export interface PauseExplanation {
  sessionId: string;
  /** `Paused: waiting for approval of 2 calls (saved; answer any time, from any surface)`. */
  headline: string;
  /** One line per request: its id, who wants to run what and why, who decides. */
  lines: string[];
  /** The requests each approver decides, in the order asked. */
  byApprover: Array<{ approver: string; ids: string[] }>;
  /** What answers them from any terminal. */
  approveCommand: string;
  rejectCommand: string;
}

export function explainPause(
  requests: readonly Pick<ApprovalView, 'id' | 'requester' | 'approver' | 'tool' | 'reason'>[],
  sessionId: string,
): PauseExplanation {
  const byApprover: PauseExplanation['byApprover'] = [];
  for (const request of requests) {
    const group = byApprover.find((entry) => entry.approver === request.approver);
    if (group) group.ids.push(request.id);
    else byApprover.push({ approver: request.approver, ids: [request.id] });
  }
  const ids = requests.map((request) => request.id).join(' ');
  return {
    sessionId,
    headline: `Paused: waiting for approval of ${requests.length === 1 ? '1 call' : `${requests.length} calls`} (saved; answer any time, from any surface)`,
    lines: requests.map(
      (request) => `${request.id}: ${request.requester} wants to run ${request.tool} (${request.reason}); ${request.approver} decides`,
    ),
    byApprover,
    approveCommand: `legion approve --session ${sessionId} ${ids}`,
    rejectCommand: `legion reject --session ${sessionId} ${ids} --reason "…"`,
  };
}

/** A pause on questions to users (nobody could be asked): what waits and the command that answers it. */
export interface QuestionPauseExplanation {
  sessionId: string;
  /** `Paused: waiting for an answer to 1 question (saved; answer any time, from any surface)`. */
  headline: string;
  /** One line per question: its id, who asks whom, the question. */
  lines: string[];
  /** What answers the first from any terminal (the others alike, by their ids). */
  answerCommand: string;
}

export function explainQuestionPause(
  questions: readonly Pick<QuestionView, 'id' | 'from' | 'user' | 'text'>[],
  sessionId: string,
): QuestionPauseExplanation {
  return {
    sessionId,
    headline: `Paused: waiting for an answer to ${questions.length === 1 ? '1 question' : `${questions.length} questions`} (saved; answer any time, from any surface)`,
    lines: questions.map((question) => `${question.id}: ${question.from} asks ${question.user}: ${question.text}`),
    answerCommand: `legion answer --session ${sessionId} ${questions[0]?.id ?? 'ID'} "…"`,
  };
}
