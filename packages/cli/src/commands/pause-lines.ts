import { explainPause, explainQuestionPause, sandboxLine, type ApprovalView, type TurnResult } from '@legion-collective/core';
import type { Style } from '../render/style.js';
import { inert, inertLine } from '../render/terminal-text.js';

type Paused = Extract<TurnResult, { status: 'paused' }>;

/**
 * What a paused turn waits on and how to answer it, as `legion run`, `legion approve` and `legion
 * answer` say it on stderr: the approvals (with their input), the questions (who asks what), and
 * the one command for each.
 */
export function pauseLines(paused: readonly Paused[], style: Style, sessionId: string): string {
  const requests = paused.flatMap((result) => result.requests);
  const questions = paused.flatMap((result) => result.questions ?? []);
  const lines: string[] = [];
  if (requests.length > 0) {
    lines.push(`${explainPause(requests, sessionId).headline}:`, ...requests.map((view) => `  ${describe(view, style)}`));
    lines.push('Answer with: legion approve ID… [--this-session | --rule [--pattern GLOB]]  or  legion reject ID… --reason "…"');
  }
  if (questions.length > 0) {
    const explained = explainQuestionPause(questions, sessionId);
    lines.push(`${explained.headline}:`);
    for (const question of questions)
      lines.push(`  ${inertLine(question.id)}  ${inertLine(question.from)} asks ${inertLine(question.user)}: ${inert(question.text)}`);
    lines.push(`Answer with: ${inert(explained.answerCommand)}  (legion questions lists them)`);
  }
  return `${lines.join('\n')}\n`;
}

/** One approval request on one line, styled for the stream it is written to. */
export function describe(view: ApprovalView, style: Style): string {
  const status =
    view.status === 'pending'
      ? style.yellow('pending ')
      : view.status === 'approved'
        ? style.green('approved')
        : view.cancelled
          ? style.dim('cancelled')
          : style.red('rejected');
  // Settled by the end of the turn that asked: nobody rejected it, so no "by".
  const decided = view.cancelled
    ? style.dim(' — the turn that asked ended before anyone decided')
    : view.decidedBy
      ? style.dim(
          ` — ${view.status} by ${inertLine(view.decidedBy)}${view.decisionReason ? `: ${inertLine(view.decisionReason)}` : ''}${view.decisionMedium ? ` (on ${inertLine(view.decisionMedium)})` : ''}`,
        )
      : style.dim(` — ${inertLine(view.approver)} decides`);
  const rule = view.decisionRuleId ? style.dim(` (rule ${inertLine(view.decisionRuleId)})`) : '';
  // What the approver weighs before answering: whether the command will run confined (the cards' line, shortened).
  const sandbox =
    view.status !== 'pending' || !view.sandbox
      ? ''
      : view.sandbox.kind === 'sandboxed'
        ? style.dim(' [sandboxed]')
        : (view.sandbox.kind === 'unsandboxed' ? style.yellow : style.red)(` [${inertLine(sandboxLine(view.sandbox))}]`);
  // The input whole, as JSON (exact, and escaped), with what JSON leaves raw (C1, DEL, bidi, zero-width) made visible.
  return `${inertLine(view.id)}  ${status}  ${inertLine(view.requester)} → ${inertLine(view.tool)} ${style.dim(inertLine(JSON.stringify(view.input) ?? ''))}${sandbox}${decided}${rule}`;
}

/**
 * The status JSON reports show: a turn paused on approvals keeps the name scripts know,
 * `approval_required`; one paused only on a user's answer is `answer_required`.
 */
export function reportedStatus(result: TurnResult): 'success' | 'error' | 'approval_required' | 'answer_required' {
  if (result.status !== 'paused') return result.status;
  return result.requests.length === 0 && (result.questions?.length ?? 0) > 0 ? 'answer_required' : 'approval_required';
}
