import { z } from 'zod';

export const SearchHitSchema = z.object({
  sessionId: z.string(),
  conversationId: z.string(),
  /** The conversation's two ends and its name, read from its id: a client names them without parsing ids. */
  initiator: z.string(),
  responder: z.string(),
  conversationName: z.string().optional(),
  messageId: z.string(),
  author: z.string(),
  at: z.string(),
  /** Where the words were found, when not in the message's text: a tool call's input, or a tool's result. */
  place: z.enum(['tool_call', 'tool_result']).optional(),
  /** The tool called, when the words were found in its input (`place: "tool_call"`). */
  tool: z.string().optional(),
  /** The matching text with some context around it (a tool call's input as its values, not JSON). */
  snippet: z.string(),
});
export type SearchHit = z.infer<typeof SearchHitSchema>;

/** `GET /api/search?q=TEXT&session=ID`: newest first, at most 100. */
export const SearchResponseSchema = z.object({ hits: z.array(SearchHitSchema) });
export type SearchResponse = z.infer<typeof SearchResponseSchema>;
