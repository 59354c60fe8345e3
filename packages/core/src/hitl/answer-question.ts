import type { Collective } from '../team/index.js';
import { QUESTION_RECORD_VERSION, type QuestionOutcomeRecord } from '../store/index.js';
import type { QuestionAnswerOutcome, TurnResult } from '../session/index.js';
import type { SessionQuestions, DelegationFrame } from '../store/index.js';
import type { ToolUseBlock } from '../kernel/index.js';
import { resumeRoot } from './answer-approvals.js';
import { decisionReach, reachesRequest } from '../team/index.js';
import { exactBytes } from '../kernel/index.js';

/** `limits.maxMessageBytes` as configured by default: what an answer is held to when no limit is given. */
const DEFAULT_MAX_ANSWER_BYTES = 1_048_576;

/** What answering a question needs of a session. */
export interface QuestionAnsweringSession {
  readonly id: string;
  readonly questions: SessionQuestions;
  turnIsLive(conversationId: string): Promise<boolean>;
  unanswered(conversationId: string): Promise<ToolUseBlock[]>;
  resumeIfWaiting(conversationId: string, frames: readonly DelegationFrame[]): Promise<TurnResult | undefined>;
}

/** Who answered, and where, as `answerQuestion` takes it. */
export interface AnswerQuestionOptions {
  /** The surface the answer was given on (`web`, `cli`, …), kept with the answer. */
  medium?: string | undefined;
  /** The user who answers (default: the user the question was addressed to). */
  answeredBy?: string | undefined;
  /**
   * false: only record the answer. A chain whose asking process ended then stays paused until
   * `resumeAnswered` (`legion questions resume`) continues it, from any process.
   */
  resume?: boolean | undefined;
  /** The largest answer taken (`limits.maxMessageBytes`; the session passes its own). */
  maxAnswerBytes?: number | undefined;
}

/**
 * Why an answer is refused for its size, or nothing: an answer becomes the
 * user's message to the asker, held to the limit of a message sent
 * (`limits.maxMessageBytes`), whichever surface it came from.
 */
export function answerSizeError(text: string, limit: number | undefined, id?: string): string | undefined {
  const max = limit ?? DEFAULT_MAX_ANSWER_BYTES;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= max) return undefined;
  return `Nothing was recorded: the answer${id === undefined ? '' : ` to ${id}`} is ${exactBytes(bytes)}; the limit is ${exactBytes(max)} (limits.maxMessageBytes). Answer with a file path instead of the content, or raise limits.maxMessageBytes in .legion/config.json.`;
}

/**
 * Records a user's answer to a question, from any process: the process whose
 * turn asked it (its surfaces racing the log) reads the answer and goes on
 * with it. Of any number of answers, in any process, the first recorded wins.
 *
 * A question whose asking turn no longer runs (its process ended) is answered
 * here: the answer is written as the user's reply and the chain that waited on
 * it (the asker's communicate call, and whoever waits above) resumes in this
 * process, as a paused approval does. If the asker no longer waits (a later
 * message moved its conversation on), the question is withdrawn and the
 * caller is told to send the answer as a new message; nothing of the answer
 * is lost, the caller still holds it.
 */
export async function answerQuestion(
  session: QuestionAnsweringSession,
  collective: Collective,
  id: string,
  text: string,
  options: AnswerQuestionOptions = {},
): Promise<QuestionAnswerOutcome> {
  const state = await session.questions.state();
  const question = state.question(id);
  if (!question) {
    const pending = state.list({ status: 'pending' }).map((view) => view.id);
    return {
      status: 'error',
      error: `There is no question "${id}" in session ${session.id} (pending: ${pending.join(', ') || 'none'}). List them with "legion questions".`,
    };
  }
  const settled = state.outcome(id);
  if (settled) return { status: 'error', error: alreadySettled(id, settled) };
  if (text.trim().length === 0)
    return { status: 'error', error: `The answer to ${id} is empty: give the text to reply to ${question.from} with.` };
  const tooLarge = answerSizeError(text, options.maxAnswerBytes, id);
  if (tooLarge !== undefined) return { status: 'error', error: tooLarge };
  const answeredBy = options.answeredBy ?? question.user;
  const answerer = collective.get(answeredBy);
  if (!answerer || answerer.type !== 'user') {
    return {
      status: 'error',
      error: `"${answeredBy}" is not a user of the collective: only a user answers questions (${id} was asked of ${question.user}).`,
    };
  }
  // A stand-in (an MCP client) answers only what was asked of it or in the chains it started, as it decides approvals.
  if (
    !reachesRequest(
      decisionReach(answerer, (candidate) => collective.isCaller(candidate)),
      answeredBy,
      { approver: question.user, frames: question.chain.map((participantId) => ({ participantId })) },
    )
  ) {
    return {
      status: 'error',
      error: `Nothing was recorded: ${id} was not asked in a turn ${answeredBy} started; ${answeredBy} answers only questions of its own chains, and this one is for the human's own surfaces (legion answer, the REPL, the web UI).`,
    };
  }
  const live = await session.turnIsLive(question.conversationId);
  // The asking process ended: its asker's communicate call may still wait in the log, to be resumed with the answer.
  const asker = question.frames?.at(-1);
  if (
    !live &&
    !(asker?.toolUseId !== undefined && (await session.unanswered(asker.conversationId)).some((toolUse) => toolUse.id === asker.toolUseId))
  ) {
    const reason = `the turn that asked it no longer runs (its process ended) and ${question.from} no longer waits for it`;
    const withdrawn = await session.questions.settle({
      kind: 'withdrawn',
      version: QUESTION_RECORD_VERSION,
      questionId: id,
      at: new Date().toISOString(),
      reason,
    });
    // Answered meanwhile (the turn took an answer, then ended, between the reads above): that answer stands.
    if (!withdrawn.ok) return { status: 'error', error: alreadySettled(id, withdrawn.taken) };
    return {
      status: 'error',
      error: `Nothing was recorded: ${question.from}'s question ${id} cannot be answered any more, because ${reason}. Send your answer to ${question.from} as a new message instead.`,
    };
  }
  const claimed = await session.questions.settle({
    kind: 'answer',
    version: QUESTION_RECORD_VERSION,
    questionId: id,
    at: new Date().toISOString(),
    text,
    answeredBy,
    ...(options.medium !== undefined ? { medium: options.medium } : {}),
  });
  if (!claimed.ok) return { status: 'error', error: alreadySettled(id, claimed.taken) };
  if (live) return { status: 'answered' };
  if (options.resume === false) return { status: 'answered', waiting: true };
  // Nobody runs the chain that waits on it: the answer becomes the user's reply here and the chain goes on, as after an approval.
  const root = await resumeRoot(session, { conversationId: question.conversationId, frames: question.frames ?? [] });
  // Only if the chain still waits once the lease is ours: `legion questions resume` in another process may have
  // seen the answer just recorded and run the chain first; a second continuation would ask the model again.
  const resumed = await session.resumeIfWaiting(root.conversationId, root.frames);
  return resumed ? { status: 'answered', resumed: [resumed] } : { status: 'answered' };
}

/** Why a question takes no answer any more, in words for the one who tried. */
export function alreadySettled(id: string, outcome: QuestionOutcomeRecord): string {
  if (outcome.kind === 'withdrawn') return `Question ${id} was withdrawn at ${outcome.at} (${outcome.reason}); nothing was recorded.`;
  return `Question ${id} was already answered by ${outcome.answeredBy}${outcome.medium ? ` in ${outcome.medium}` : ''} at ${outcome.at}; nothing was recorded.`;
}
