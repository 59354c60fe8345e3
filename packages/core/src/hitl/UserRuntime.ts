import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { answerSizeError } from './answer-question.js';
import { errorMessage, textOf } from '../kernel/index.js';
import { waitingParticipants } from '../session/index.js';
import type { ParticipantRuntime, RuntimeOutcome, TurnContext } from '../session/index.js';
import { QUESTION_RECORD_VERSION, questionView, type QuestionRecord } from '../store/index.js';
import type { AttachedElsewhere, SessionQuestions } from '../store/index.js';
import type { OfferRace, UserSurfaces } from './UserSurfaces.js';

/** How often a question waiting for another process's surface checks that one is still attached. */
const PRESENCE_POLL_MS = 1_000;

/**
 * Answers for users: a message to the user is recorded as a question (so any
 * process on the workspace may answer it), then offered to every attached
 * surface while the question log is watched; the first answer is the reply,
 * written with the medium it came from. With no surface here, the question
 * waits for the surfaces other processes have attached (a browser of `legion
 * serve`) while any is; with none anywhere, the turn pauses durably,
 * as on an approval: `legion answer` resumes it, from any process. Only when
 * every surface that was asked failed (or declined: `--answer-questions deny`)
 * is the sender told that the user cannot be asked now, so it can decide and say so.
 */
export class UserRuntime implements ParticipantRuntime {
  constructor(
    private readonly surfaces: UserSurfaces,
    private readonly options: {
      /** `limits.maxMessageBytes`: an answer becomes the user's message, held to the same limit on every surface. */
      maxAnswerBytes?: number | undefined;
      /** The surfaces other processes on this machine have attached now. */
      elsewhere?: (() => AttachedElsewhere[]) | undefined;
    } = {},
  ) {}

  async handleMessage(turn: TurnContext): Promise<RuntimeOutcome> {
    const user = turn.participant;
    const chain = waitingParticipants(turn.frames);
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
    let asked: Asked;
    try {
      asked = await this.ask(turn, record);
      if (asked.status === 'nobody') return await this.pause(turn, record);
    } catch (error) {
      // Whatever ended the asking (a cancel, a surface's stop, a failure), the question goes with it: nobody waits on it.
      await withdraw(questions, record, `the asking turn ended: ${errorMessage(error)}`);
      throw error;
    }
    if (asked.status === 'answered') return this.reply(turn, asked.answer);
    // An answer recorded at this very moment (another process) wins over the withdrawal: it is used.
    const answer = await withdraw(
      questions,
      record,
      asked.failed ? `no surface could answer (${asked.failed})` : 'no surface that answers questions is attached',
    );
    return answer ? this.reply(turn, answer) : unavailable(user.id, asked.failed);
  }

  /**
   * Asks the attached surfaces, else (none here, or every one declined) waits for those other
   * processes attached: the answer; `nobody` when no surface anywhere could be asked (the turn
   * pauses on the question); `failed` when every surface asked failed.
   */
  private async ask(turn: TurnContext, record: QuestionRecord): Promise<Asked> {
    if (this.surfaces.can('ask')) {
      // An oversized answer is never recorded: the surface is told why and asked again.
      const check = (text: string): string | undefined => answerSizeError(text, this.options.maxAnswerBytes, record.id);
      const outcome = await this.surfaces.ask(
        {
          id: record.id,
          user: turn.participant,
          from: record.from,
          text: record.text,
          chain: record.chain,
          conversation: turn.conversation.ref,
        },
        turn.signal,
        raceOf(turn.session.questions, record),
        check,
      );
      if (outcome.status === 'answered') return { status: 'answered', answer: { text: outcome.value, medium: outcome.medium } };
      // Every surface declined (none was the one to answer): as with no surface here at all.
      if (!outcome.failures.every((failure) => failure.declined))
        return { status: 'failed', failed: outcome.failures.map((failure) => `${failure.medium}: ${failure.error}`).join('; ') };
    }
    const elsewhere = await this.answerElsewhere(turn, record);
    return elsewhere ? { status: 'answered', answer: elsewhere } : { status: 'nobody' };
  }

  private async reply(turn: TurnContext, answer: { text: string; medium: string }): Promise<RuntimeOutcome> {
    const message = await turn.conversation.append(
      { role: 'assistant', content: [{ type: 'text', text: answer.text }], medium: answer.medium },
      turn.participant.id,
    );
    return { status: 'success', reply: answer.text, message };
  }

  /**
   * Waits for the answer from another process's surface while one is attached (checked every
   * second); undefined once none is, and nobody answered: the question is to pause the turn.
   */
  private async answerElsewhere(turn: TurnContext, record: QuestionRecord): Promise<{ text: string; medium: string } | undefined> {
    if ((this.options.elsewhere?.() ?? []).length === 0) return undefined;
    const stop = new AbortController();
    const abort = (): void => stop.abort(turn.signal.reason);
    turn.signal.addEventListener('abort', abort, { once: true });
    try {
      const recorded = raceOf(turn.session.questions, record)
        .recorded(stop.signal)
        .then(
          (answer) => ({ answer }),
          (error: unknown) => ({ error }),
        );
      while ((this.options.elsewhere?.() ?? []).length > 0) {
        const settled = await Promise.race([recorded, delay(PRESENCE_POLL_MS, undefined, { signal: stop.signal }).catch(() => undefined)]);
        if (settled && 'error' in settled) throw turn.signal.aborted ? turn.signal.reason : settled.error;
        if (settled) return { text: settled.answer.value, medium: settled.answer.medium };
      }
      return undefined;
    } finally {
      stop.abort();
      turn.signal.removeEventListener('abort', abort);
    }
  }

  /**
   * Nobody can be asked now: the question stays open in the session's log and the turn pauses on
   * it, durably; `legion answer` (any process) records the answer and resumes the chain. An answer
   * recorded as the last surface went is used rather than paused on.
   */
  private async pause(turn: TurnContext, record: QuestionRecord): Promise<RuntimeOutcome> {
    const state = await turn.session.questions.state();
    const outcome = state.outcome(record.id);
    if (outcome?.kind === 'answer') return this.reply(turn, { text: outcome.text, medium: outcome.medium ?? 'another process' });
    return { status: 'paused', requests: [], questions: [questionView(turn.session.id, record, outcome)] };
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
    const state = await turn.session.questions.state();
    const answer = state.answerIn(conversationId);
    if (!answer) {
      // Resumed before the answer came (an approval elsewhere in the tree was decided): still paused on it.
      const open = state.list({ status: 'pending' }).filter((view) => view.conversationId === conversationId);
      if (open.length > 0) return { status: 'paused', requests: [], questions: open };
      return {
        status: 'error',
        code: 'not_resumable',
        error: `No answered question waits in ${conversationId}: answer it first (legion questions lists them).`,
      };
    }
    const message = await turn.conversation.append(
      {
        role: 'assistant',
        content: [{ type: 'text', text: answer.text }],
        ...(answer.medium !== undefined ? { medium: answer.medium } : {}),
      },
      turn.participant.id,
    );
    return { status: 'success', reply: answer.text, message };
  }
}

/** What asking came to: an answer, nobody to ask anywhere, or every surface asked failed (why, per surface). */
type Asked = { status: 'answered'; answer: { text: string; medium: string } } | { status: 'nobody' } | { status: 'failed'; failed: string };

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
      const claimed = await questions.settle({
        kind: 'answer',
        version: QUESTION_RECORD_VERSION,
        questionId: record.id,
        at: new Date().toISOString(),
        text,
        answeredBy: record.user,
        medium,
      });
      if (claimed.ok) return { ok: true };
      const taken = claimed.taken;
      // Withdrawn by someone else while a surface answered: the surface's answer is the one there is.
      if (taken.kind !== 'answer') return { ok: true };
      return { ok: false, value: taken.text, medium: taken.medium ?? 'another process' };
    },
  };
}

/** Withdraws the question; an answer recorded first (by another process) is returned instead. */
async function withdraw(
  questions: SessionQuestions,
  record: QuestionRecord,
  reason: string,
): Promise<{ text: string; medium: string } | undefined> {
  const claimed = await questions.settle({
    kind: 'withdrawn',
    version: QUESTION_RECORD_VERSION,
    questionId: record.id,
    at: new Date().toISOString(),
    reason,
  });
  if (claimed.ok || claimed.taken.kind !== 'answer') return undefined;
  return { text: claimed.taken.text, medium: claimed.taken.medium ?? 'another process' };
}
