import { z } from 'zod';

export const SessionSummarySchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  /** When a top-level message last arrived. */
  updatedAt: z.string(),
  title: z.string().optional(),
  conversations: z.number(),
  messages: z.number(),
  /** null when no call had a known price. */
  costUsd: z.number().nullable(),
  /** Input, output and cached tokens of every model call. */
  tokens: z.number(),
});
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

/**
 * `GET /api/sessions?q=TEXT&limit=N&after=CURSOR`: most recently active first; `q` matches id or
 * title. `next`, when more follow, is the cursor of the next page (pass it as `after`).
 */
export const SessionListResponseSchema = z.object({ sessions: z.array(SessionSummarySchema), next: z.string().optional() });
export type SessionListResponse = z.infer<typeof SessionListResponseSchema>;

export const CreateSessionRequestSchema = z.object({ title: z.string().min(1).optional() });
export type CreateSessionRequest = z.infer<typeof CreateSessionRequestSchema>;
export const CreateSessionResponseSchema = z.object({ id: z.string() });
export type CreateSessionResponse = z.infer<typeof CreateSessionResponseSchema>;

/** A directional conversation: `initiator` → `responder`, optionally named. Its id is `<initiator>__<responder>[__<name>]`. */
export const ConversationSummarySchema = z.object({
  id: z.string(),
  initiator: z.string(),
  responder: z.string(),
  name: z.string().optional(),
  messages: z.number(),
  lastAt: z.string().optional(),
  /** The server runs a turn in it now. */
  busy: z.boolean(),
});
export type ConversationSummary = z.infer<typeof ConversationSummarySchema>;

/** `GET /api/sessions/:id`. */
export const SessionDetailResponseSchema = z.object({ session: SessionSummarySchema, conversations: z.array(ConversationSummarySchema) });
export type SessionDetailResponse = z.infer<typeof SessionDetailResponseSchema>;
