import { z } from 'zod';

// The one definition of a question as surfaces show it (`legion questions`, the server's API):
// built only where it is validated (the vocabulary entry), since the engine needs the type alone.

/** A question with its outcome, as surfaces and `legion questions` show it. */
export const QuestionViewSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  conversationId: z.string(),
  /** The user it is addressed to. */
  user: z.string(),
  /** Who asks: the last of `chain`. */
  from: z.string(),
  /** Participants waiting on the answer, outermost first; ends with the sender. */
  chain: z.array(z.string()),
  text: z.string(),
  askedAt: z.string(),
  status: z.enum(['pending', 'answered', 'withdrawn']),
  answer: z.object({ text: z.string(), answeredBy: z.string(), medium: z.string().optional(), at: z.string() }).optional(),
  /** Why it was withdrawn, when it was. */
  withdrawnReason: z.string().optional(),
});
export type QuestionView = z.infer<typeof QuestionViewSchema>;
