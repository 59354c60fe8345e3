import { z } from 'zod';

export const SearchHitSchema = z.object({
  sessionId: z.string(),
  conversationId: z.string(),
  messageId: z.string(),
  author: z.string(),
  at: z.string(),
  /** The matching text with some context around it. */
  snippet: z.string(),
});
export type SearchHit = z.infer<typeof SearchHitSchema>;

/** `GET /api/search?q=TEXT&session=ID`: newest first, at most 100. */
export const SearchResponseSchema = z.object({ hits: z.array(SearchHitSchema) });
export type SearchResponse = z.infer<typeof SearchResponseSchema>;
