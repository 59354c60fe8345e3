import { textOf, type LegionEvent, type UserSurface } from '@legion-collective/core';
import type { ReportedQuestion, StreamLine } from './stream-line.js';

/**
 * How `legion run` answers an agent that asks the user something: `ask` (on the terminal when
 * there is one; else the question waits for a surface another process attached, or the run
 * pauses until `legion answer`), `deny` (the asker is told the user is unavailable) or `text`.
 */
export type AnswerQuestionsMode = 'ask' | 'deny' | 'text';

/** The surface that answers every question with the same text (`--answer`). */
export function fixedAnswerSurface(text: string): UserSurface {
  return { medium: 'headless', ask: async () => text };
}

/** The surface that declines every question (`--answer-questions deny`): the asker hears the user is unavailable. */
export function declinedSurface(): UserSurface {
  return {
    medium: 'headless',
    ask: async () => {
      throw new Error('this run does not take questions (--answer-questions deny)');
    },
  };
}

/**
 * Collects the questions agents ask users during a run, from the events: a
 * user's turn starts (who asks, through which chain), its message is the
 * question, its end says whether it was answered. Works alike whether the
 * answer came from `--answer` or the asker was told the user is unavailable.
 */
export class QuestionTracker {
  readonly questions: ReportedQuestion[] = [];
  private readonly open = new Map<string, { question: ReportedQuestion; messageId: string | undefined; sessionId: string }>();

  constructor(
    private readonly isUser: (participantId: string) => boolean,
    private readonly emit: (line: StreamLine) => void = () => {},
  ) {}

  readonly listen = (event: LegionEvent): void => {
    if (event.type === 'turn:start' && this.isUser(event.participantId)) {
      const from = event.chain.at(-1) ?? event.initiator;
      this.open.set(event.conversationId, {
        question: {
          conversationId: event.conversationId,
          from,
          to: event.participantId,
          chain: [...event.chain],
          text: '',
          answered: false,
        },
        messageId: event.messageId,
        sessionId: event.sessionId,
      });
    } else if (event.type === 'question:asked' && !event.remote) {
      const pending = this.open.get(event.conversationId);
      if (pending) pending.question.id = event.questionId;
    } else if (event.type === 'message:sent') {
      const pending = this.open.get(event.conversationId);
      if (!pending || event.message.id !== pending.messageId) return;
      pending.question.text = textOf(event.message);
      const { question } = pending;
      this.emit({
        type: 'question:asked',
        sessionId: pending.sessionId,
        conversationId: question.conversationId,
        from: question.from,
        to: question.to,
        chain: question.chain,
        text: question.text,
      });
    } else if (event.type === 'turn:end' && this.isUser(event.participantId)) {
      const pending = this.open.get(event.conversationId);
      if (!pending) return;
      this.open.delete(event.conversationId);
      const { question } = pending;
      question.answered = event.status === 'success';
      // Nobody could be asked: the question waits in the session for `legion answer`.
      if (event.status === 'paused') question.pending = true;
      if (event.reply !== undefined) question.answer = event.reply;
      if (event.error !== undefined) question.error = event.error;
      this.questions.push(question);
      // Not answered, nor refused: the report lists it as pending, and `legion answer` is still to come.
      if (question.pending) return;
      this.emit({
        type: 'question:answered',
        sessionId: pending.sessionId,
        conversationId: question.conversationId,
        from: question.from,
        to: question.to,
        answered: question.answered,
        ...(question.answer !== undefined ? { answer: question.answer } : {}),
        ...(question.error !== undefined ? { error: question.error } : {}),
      });
    }
  };
}
