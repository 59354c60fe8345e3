import { z } from 'zod';
import { DelegationFrameSchema } from './delegation-frame.js';
import type { QuestionView } from './question-view.js';

/** The version of question-log records this Legion writes. */
export const QUESTION_RECORD_VERSION = 1;

/**
 * A message to a user that a process offered to its surfaces (through
 * `communicate`), recorded before anyone is asked, so that any process on the
 * workspace can see it and answer it (`session.answerQuestion`).
 */
export const QuestionRecordSchema = z.lazy(() =>
  z.object({
    kind: z.literal('question'),
    version: z.literal(QUESTION_RECORD_VERSION),
    /** `q_` and 12 hex digits. */
    id: z.string(),
    at: z.string(),
    /** The conversation the question is the last message of: `<from>__<user>[__<name>]`, whose responder is the user. */
    conversationId: z.string(),
    /** The user asked. */
    user: z.string(),
    /** Who sent it: the last of `chain`. */
    from: z.string(),
    /** Participants waiting on the answer, outermost first. */
    chain: z.array(z.string()),
    text: z.string(),
    /**
     * The delegation stack of the asking turn (outermost first, ending with the
     * asker's `communicate` call): what resumes the chain when the question is
     * answered after its process ended. Added without a version bump, like an
     * approval decision's `medium`: optional, and ignored by a reader that does not know it.
     */
    frames: z.array(DelegationFrameSchema).optional(),
  }),
);

/** The one answer a question gets, whichever process gave it first. */
export const QuestionAnswerRecordSchema = z.lazy(() =>
  z.object({
    kind: z.literal('answer'),
    version: z.literal(QUESTION_RECORD_VERSION),
    questionId: z.string(),
    at: z.string(),
    text: z.string(),
    /** Who answered (the user, as a participant id). */
    answeredBy: z.string(),
    /** The surface it was given on (`terminal`, `web`, `cli`, …). */
    medium: z.string().optional(),
  }),
);

/**
 * A question whose asking turn ended without an answer (stopped, or no surface
 * could answer): it takes the answer's place, through the same first-wins
 * claim, so an answer given at the same moment either wins or is refused.
 */
export const QuestionWithdrawnRecordSchema = z.lazy(() =>
  z.object({
    kind: z.literal('withdrawn'),
    version: z.literal(QUESTION_RECORD_VERSION),
    questionId: z.string(),
    at: z.string(),
    reason: z.string(),
  }),
);

/** What settles a question: its answer or its withdrawal (one per question, first wins). */
export const QuestionOutcomeRecordSchema = z.lazy(() =>
  z.discriminatedUnion('kind', [QuestionAnswerRecordSchema, QuestionWithdrawnRecordSchema]),
);

/** What a session's question log holds. */
export const QuestionLogRecordSchema = z.lazy(() =>
  z.discriminatedUnion('kind', [QuestionRecordSchema, QuestionAnswerRecordSchema, QuestionWithdrawnRecordSchema]),
);

export type QuestionRecord = z.infer<typeof QuestionRecordSchema>;
export type QuestionAnswerRecord = z.infer<typeof QuestionAnswerRecordSchema>;
export type QuestionWithdrawnRecord = z.infer<typeof QuestionWithdrawnRecordSchema>;
export type QuestionOutcomeRecord = z.infer<typeof QuestionOutcomeRecordSchema>;
export type QuestionLogRecord = z.infer<typeof QuestionLogRecordSchema>;

export type { QuestionView } from './question-view.js';

/** The one place a view is made. */
export function questionView(sessionId: string, question: QuestionRecord, outcome: QuestionOutcomeRecord | undefined): QuestionView {
  return {
    id: question.id,
    sessionId,
    conversationId: question.conversationId,
    user: question.user,
    from: question.from,
    chain: [...question.chain],
    text: question.text,
    askedAt: question.at,
    status: outcome ? (outcome.kind === 'answer' ? 'answered' : 'withdrawn') : 'pending',
    ...(outcome?.kind === 'answer'
      ? { answer: { text: outcome.text, answeredBy: outcome.answeredBy, medium: outcome.medium, at: outcome.at } }
      : {}),
    ...(outcome?.kind === 'withdrawn' ? { withdrawnReason: outcome.reason } : {}),
  };
}
