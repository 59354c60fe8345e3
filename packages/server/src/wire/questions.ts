import { QuestionViewSchema } from '@legion-collective/core/vocabulary';
import { z } from 'zod';

/**
 * A message an agent sent to a user, waiting for the user's answer: core's question view without
 * its outcome (`status`, `answer`, `withdrawnReason`), since the API lists pending questions only.
 */
export const WireQuestionSchema = QuestionViewSchema.pick({
  id: true,
  sessionId: true,
  conversationId: true,
  from: true,
  user: true,
  chain: true,
  text: true,
  askedAt: true,
});
export type WireQuestion = z.infer<typeof WireQuestionSchema>;

/** `GET /api/questions?session=ID`: pending questions, oldest first. */
export const QuestionListResponseSchema = z.object({ questions: z.array(WireQuestionSchema) });
export type QuestionListResponse = z.infer<typeof QuestionListResponseSchema>;

/** `POST /api/questions/:id/answer`. */
export const QuestionAnswerRequestSchema = z.object({ text: z.string().min(1) });
export type QuestionAnswerRequest = z.infer<typeof QuestionAnswerRequestSchema>;
