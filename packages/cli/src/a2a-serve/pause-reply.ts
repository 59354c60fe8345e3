import { explainPause, explainQuestionPause, type Participant, type TurnResult } from '@legion-collective/core';
import type { LegionTaskFacts } from './task-events.js';

type Paused = Extract<TurnResult, { status: 'paused' }>;

/** What an input-required task says and waits on: the client's part first (its questions, its approvals), then the human's. */
export interface PauseReply {
  text: string;
  waiting: NonNullable<LegionTaskFacts['waiting']>;
}

/**
 * A paused turn as an input-required task, by the rules `legion mcp serve` follows: the caller
 * answers the questions asked of it (or of the human it stands in for) and decides the approvals
 * addressed to it, approving once or rejecting; the rest are the human's, on their own surfaces
 * (`legion approve`, `legion answer`, the REPL, the web UI), and the task says so.
 */
export function pauseReply(result: Paused, caller: Participant, sessionId: string): PauseReply {
  const standsInFor = caller.type === 'user' ? caller.actsFor : undefined;
  const questions = result.questions ?? [];
  const forClient = questions.filter((question) => question.user === caller.id || question.user === standsInFor);
  const forHuman = questions.filter((question) => !forClient.includes(question));
  const yours = result.requests.filter((request) => request.approver === caller.id);
  const theirs = result.requests.filter((request) => request.approver !== caller.id);
  const lines: string[] = [];
  const first = forClient[0];
  if (first !== undefined) {
    lines.push(`${first.from} asks: ${first.text}`, 'Your next message in this task is the answer.');
  }
  if (yours.length > 0) {
    const pause = explainPause(yours, sessionId);
    lines.push(
      `${pause.headline}.`,
      ...yours.map((request, index) => `- ${pause.lines[index]}. Input: ${JSON.stringify(request.input)}`),
      first === undefined
        ? 'Reply "approve" to allow it once, or "reject" (or "reject: why", which the agent is told).'
        : 'Once the question is answered, reply "approve" or "reject" to decide these.',
    );
  }
  if (theirs.length > 0) {
    const pause = explainPause(theirs, sessionId);
    lines.push(
      `${pause.headline}.`,
      ...pause.lines.map((line) => `- ${line}`),
      `${[...new Set(theirs.map((request) => request.approver))].join(', ')} decides in the workspace: \`${pause.approveCommand}\` (or \`${pause.rejectCommand}\`), the REPL (\`legion\`) or the web UI (\`legion serve\`). Send any message in this task afterwards to learn how it went.`,
    );
  }
  if (forHuman.length > 0) {
    const pause = explainQuestionPause(forHuman, sessionId);
    lines.push(
      `${pause.headline}.`,
      ...pause.lines.map((line) => `- ${line}`),
      `The user answers in the workspace: \`${pause.answerCommand}\`, the REPL or the web UI. Send any message in this task afterwards to learn how it went.`,
    );
  }
  return {
    text: lines.join('\n'),
    waiting: {
      questions: first === undefined ? [] : [first.id],
      approvals: yours.map((request) => request.id),
      elsewhere: [...theirs.map((request) => request.id), ...forHuman.map((question) => question.id)],
    },
  };
}

/** A client's reply to approvals it may decide: approve (once) or reject, with the reason after it; undefined when it is neither. */
export function decisionOf(text: string): { choice: 'once' | 'reject'; reason?: string } | undefined {
  const match = /^\s*(approve|approved|yes|ok|allow|reject|rejected|no|deny)\b[\s:,.-]*([\s\S]*)$/i.exec(text);
  if (!match) return undefined;
  const word = match[1]!.toLowerCase();
  const reason = match[2]!.trim();
  const choice = ['reject', 'rejected', 'no', 'deny'].includes(word) ? 'reject' : 'once';
  return reason.length > 0 ? { choice, reason } : { choice };
}
