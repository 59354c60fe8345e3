import {
  questionView,
  type QuestionAnswerRecord,
  type QuestionLogRecord,
  type QuestionOutcomeRecord,
  type QuestionRecord,
  type QuestionView,
} from './records/question-records.js';
import type { QuestionLog, SettleResult } from './session-backend.js';
import { waitForRecord, type WatchSession } from './fs/wait-for-record.js';

/** A session's questions as they stood at one read: each question and its one outcome (the first stands). */
export class QuestionState {
  private readonly questions = new Map<string, QuestionRecord>();
  private readonly outcomes = new Map<string, QuestionOutcomeRecord>();

  constructor(
    private readonly sessionId: string,
    records: readonly QuestionLogRecord[],
  ) {
    for (const record of records) {
      if (record.kind === 'question') this.questions.set(record.id, record);
      else if (!this.outcomes.has(record.questionId)) this.outcomes.set(record.questionId, record);
    }
  }

  question(id: string): QuestionRecord | undefined {
    return this.questions.get(id);
  }

  outcome(id: string): QuestionOutcomeRecord | undefined {
    return this.outcomes.get(id);
  }

  /**
   * The conversation an agent's `communicate` call waits on, from the questions' frames: a call
   * above the asker waits on the next frame's conversation (a delegate that paused on the
   * question); the asker's own call on the user's conversation once the question is answered,
   * which a resumed turn reads the answer from.
   */
  delegateOf(conversationId: string, toolUseId: string): string | undefined {
    for (const question of this.questions.values()) {
      const frames = question.frames ?? [];
      for (const [index, frame] of frames.entries()) {
        if (frame.conversationId !== conversationId || frame.toolUseId !== toolUseId) continue;
        const next = frames[index + 1];
        if (next) return next.conversationId;
        if (this.outcomes.get(question.id)?.kind === 'answer') return question.conversationId;
      }
    }
    return undefined;
  }

  /** The question an agent's `communicate` call (its conversation and tool use) asked, whatever became of it; the latest if several. */
  questionFor(conversationId: string, toolUseId: string): QuestionView | undefined {
    let found: QuestionRecord | undefined;
    for (const question of this.questions.values()) {
      const asker = question.frames?.at(-1);
      if (asker?.conversationId === conversationId && asker.toolUseId === toolUseId) found = question;
    }
    return found && questionView(this.sessionId, found, this.outcomes.get(found.id));
  }

  /** The answer to the latest question asked in a conversation, if it has one. */
  answerIn(conversationId: string): QuestionAnswerRecord | undefined {
    const asked = [...this.questions.values()].filter((question) => question.conversationId === conversationId).at(-1);
    const outcome = asked && this.outcomes.get(asked.id);
    return outcome?.kind === 'answer' ? outcome : undefined;
  }

  view(id: string): QuestionView | undefined {
    const question = this.questions.get(id);
    return question && questionView(this.sessionId, question, this.outcomes.get(id));
  }

  /** Oldest first. */
  list(options: { status?: QuestionView['status'] | undefined } = {}): QuestionView[] {
    const views = [...this.questions.values()].map((question) => questionView(this.sessionId, question, this.outcomes.get(question.id)));
    return options.status ? views.filter((view) => view.status === options.status) : views;
  }
}

/**
 * A session's questions to users, through the backend's question log. Every
 * call reads the log anew, so what other processes recorded is seen.
 */
export class SessionQuestions {
  constructor(
    private readonly log: QuestionLog,
    private readonly sessionId: string,
    private readonly options: {
      /** Hears every record this session wrote, once it is stored (the question events come from it). */
      onRecorded?: ((record: QuestionLogRecord, state: () => Promise<QuestionState>) => Promise<void> | void) | undefined;
      /** The backend's change hint for this session: waiters read at once on it. */
      watch?: WatchSession | undefined;
    } = {},
  ) {}

  async state(): Promise<QuestionState> {
    return new QuestionState(this.sessionId, await this.log.read(this.sessionId));
  }

  async append(record: QuestionRecord): Promise<void> {
    await this.log.append(this.sessionId, record);
    await this.options.onRecorded?.(record, () => this.state());
  }

  /** Records the answer or withdrawal if, and only if, the question has no outcome yet, across processes: the first settle wins. */
  async settle(record: QuestionOutcomeRecord): Promise<SettleResult> {
    const result = await this.log.claim(this.sessionId, [record]);
    // One record claimed: what took its key is the one outcome that stands.
    if (!result.ok) return { ok: false, taken: result.taken[0] ?? record };
    await this.options.onRecorded?.(record, () => this.state());
    return result;
  }

  async list(options: { status?: QuestionView['status'] | undefined } = {}): Promise<QuestionView[]> {
    return (await this.state()).list(options);
  }

  async view(id: string): Promise<QuestionView | undefined> {
    return (await this.state()).view(id);
  }

  /** Resolves with the question's outcome once one is recorded, by any process; rejects when `signal` aborts. */
  outcomeOf(id: string, signal: AbortSignal): Promise<QuestionOutcomeRecord> {
    return waitForRecord(async () => (await this.state()).outcome(id), { watch: this.options.watch, signal });
  }
}
