import type { EventBus } from '../kernel/index.js';
import type { QuestionLogRecord, QuestionRecord } from '../store/index.js';

/**
 * The event a question-log record makes: a question is `question:asked`, an
 * answer `question:answered`, a withdrawal `question:withdrawn` (told with its
 * question, found by `questionOf`). `remote` when a follower read it from another process's log.
 */
export function emitQuestionRecord(
  events: EventBus,
  sessionId: string,
  record: QuestionLogRecord,
  questionOf: (id: string) => QuestionRecord | undefined,
  remote = false,
): void {
  const from = remote ? { remote: true as const } : {};
  if (record.kind === 'question') {
    if (!events.hasListeners('question:asked')) return;
    events.emit('question:asked', {
      sessionId,
      conversationId: record.conversationId,
      questionId: record.id,
      user: record.user,
      from: record.from,
      chain: record.chain,
      text: record.text,
      at: record.at,
      ...from,
    });
    return;
  }
  const question = questionOf(record.questionId);
  if (!question) return;
  const about = { sessionId, conversationId: question.conversationId, questionId: question.id, user: question.user, from: question.from };
  if (record.kind === 'answer') {
    if (!events.hasListeners('question:answered')) return;
    events.emit('question:answered', {
      ...about,
      text: record.text,
      answeredBy: record.answeredBy,
      ...(record.medium !== undefined ? { medium: record.medium } : {}),
      ...from,
    });
  } else {
    if (!events.hasListeners('question:withdrawn')) return;
    events.emit('question:withdrawn', { ...about, reason: record.reason, ...from });
  }
}
