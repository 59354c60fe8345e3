import { randomBytes } from 'node:crypto';
import { answerSizeError } from '../conversation/answer-question.js';
import { errorMessage } from '../errors.js';
import { textOf } from '../message.js';
import { waitingParticipants } from '../session/delegation-stack.js';
import type { ParticipantRuntime, RuntimeOutcome, TurnContext } from '../session/turn.js';
import { QUESTION_RECORD_VERSION, type QuestionRecord } from '../storage/question-records.js';
import type { SessionQuestions } from '../storage/SessionQuestions.js';
import type { OfferRace, UserSurfaces } from './UserSurfaces.js';

/**
 * Answers for users: a message to the user is recorded as a question (so any
 * process on the workspace may answer it), then offered to every attached
 * surface while the question log is watched; the first answer is the reply,
 * written with the medium it came from. With no surface that can answer (a
 * headless run), the sender is told plainly that the user cannot be asked
 * now, so it can decide and say so.
 */
export class UserRuntime implements ParticipantRuntime {
  constructor(
    private readonly surfaces: UserSurfaces,
    /** `limits.maxMessageBytes`: an answer becomes the user's message, held to the same limit on every surface. */
    private readonly options: { maxAnswerBytes?: number | undefined } = {},
  ) {}

  async handleMessage(turn: TurnContext): Promise<RuntimeOutcome> {
    const user = turn.participant;
    const chain = waitingParticipants(turn.frames);
    if (!this.surfaces.can('ask')) return unavailable(user.id, '');
    const { questions } = turn.session;
    const record: QuestionRecord = {
      kind: 'question',
      version: QUESTION_RECORD_VERSION,
      id: `q_${randomBytes(6).toString('hex')}`,
      at: new Date().toISOString(),
      conversationId: turn.conversation.ref.conversationId,
      user: user.id,
      from: chain.at(-1) ?? turn.conversation.ref.initiator,
      chain: [...chain],
      text: turn.message ? textOf(turn.message) : '',
      frames: [...turn.frames],
    };
    // The questions log is the session's, which no lease fences: a turn that lost its lease asks nothing.
    await turn.conversation.confirmLease();
    await questions.append(record);
    let outcome;
    try {
      // An oversized answer is never recorded: the surface is told why and asked again.
      const check = (text: string): string | undefined => answerSizeError(text, this.options.maxAnswerBytes, record.id);
      outcome = await this.surfaces.ask({ id: record.id, user, from: record.from, text: record.text, chain, conversation: turn.conversation.ref }, turn.signal, raceOf(questions, record), check);
    } catch (error) {
      await withdraw(questions, record, `the asking turn ended: ${errorMessage(error)}`);
      throw error;
    }
    let answer: { text: string; medium: string } | undefined = outcome.status === 'answered' ? { text: outcome.value, medium: outcome.medium } : undefined;
    let failed = '';
    if (outcome.status === 'unanswered') {
      failed = outcome.failures.map((failure) => `${failure.medium}: ${failure.error}`).join('; ');
      // An answer recorded at this very moment (another process) wins over the withdrawal: it is used.
      answer = await withdraw(questions, record, failed ? `no surface could answer (${failed})` : 'no surface that answers questions is attached');
    }
    if (!answer) return unavailable(user.id, failed);
    const message = await turn.conversation.append({ role: 'assistant', content: [{ type: 'text', text: answer.text }], medium: answer.medium }, user.id);
    return { status: 'success', reply: answer.text, message };
  }

  /**
   * Continues a question whose asking process ended before it was answered,
   * once it has been (`session.answerQuestion` recorded the answer, then resumes
   * the chain): the answer becomes the user's reply, written once.
   */
  async resume(turn: TurnContext): Promise<RuntimeOutcome> {
    const { conversationId } = turn.conversation.ref;
    const last = (await turn.conversation.history()).at(-1);
    // Written already (a resume that stopped after it): the reply stands.
    if (last?.role === 'assistant') return { status: 'success', reply: textOf(last), message: last };
    const answer = (await turn.session.questions.state()).answerIn(conversationId);
    if (!answer) return { status: 'error', code: 'not_resumable', error: `No answered question waits in ${conversationId}: answer it first (legion questions lists them).` };
    const message = await turn.conversation.append({ role: 'assistant', content: [{ type: 'text', text: answer.text }], ...(answer.medium !== undefined ? { medium: answer.medium } : {}) }, turn.participant.id);
    return { status: 'success', reply: answer.text, message };
  }
}

function unavailable(userId: string, failed: string): RuntimeOutcome {
  return {
    status: 'error',
    code: 'user_unavailable',
    error:
      `${userId} is not available: ${failed ? `no surface could answer (${failed})` : 'no surface that answers questions is attached (a headless run)'}. ` +
      'Make a reasonable assumption, say which in your reply, and continue.',
  };
}

/** The question log as the offer's rival: an answer recorded there first wins; a surface's answer is claimed there. */
function raceOf(questions: SessionQuestions, record: QuestionRecord): OfferRace<string> {
  return {
    recorded: async (signal) => {
      const outcome = await questions.outcomeOf(record.id, signal);
      // Only an answer ends the offer; a withdrawal is this turn's own to make.
      if (outcome.kind !== 'answer') throw new Error(`${record.id} was withdrawn elsewhere`);
      return { value: outcome.text, medium: outcome.medium ?? 'another process' };
    },
    claim: async (text, medium) => {
      const claimed = await questions.settle({ kind: 'answer', version: QUESTION_RECORD_VERSION, questionId: record.id, at: new Date().toISOString(), text, answeredBy: record.user, medium });
      if (claimed.ok) return { ok: true };
      const taken = claimed.taken;
      // Withdrawn by someone else while a surface answered: the surface's answer is the one there is.
      if (taken.kind !== 'answer') return { ok: true };
      return { ok: false, value: taken.text, medium: taken.medium ?? 'another process' };
    },
  };
}

/** Withdraws the question; an answer recorded first (by another process) is returned instead. */
async function withdraw(questions: SessionQuestions, record: QuestionRecord, reason: string): Promise<{ text: string; medium: string } | undefined> {
  const claimed = await questions.settle({ kind: 'withdrawn', version: QUESTION_RECORD_VERSION, questionId: record.id, at: new Date().toISOString(), reason });
  if (claimed.ok || claimed.taken.kind !== 'answer') return undefined;
  return { text: claimed.taken.text, medium: claimed.taken.medium ?? 'another process' };
}
