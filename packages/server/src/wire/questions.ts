import { z } from 'zod';

/** A message an agent sent to a user, waiting for the user's answer. */
export const WireQuestionSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  conversationId: z.string(),
  /** Who asks: the last of `chain`. */
  from: z.string(),
  /** The user it is addressed to. */
  user: z.string(),
  /** Participants waiting on the answer, outermost first; ends with the sender. */
  chain: z.array(z.string()),
  text: z.string(),
  askedAt: z.string(),
});
export type WireQuestion = z.infer<typeof WireQuestionSchema>;

/** `GET /api/questions?session=ID`: pending questions, oldest first. */
export const QuestionListResponseSchema = z.object({ questions: z.array(WireQuestionSchema) });
export type QuestionListResponse = z.infer<typeof QuestionListResponseSchema>;

/** `POST /api/questions/:id/answer`. */
export const QuestionAnswerRequestSchema = z.object({ text: z.string().min(1) });
export type QuestionAnswerRequest = z.infer<typeof QuestionAnswerRequestSchema>;
