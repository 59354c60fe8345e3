import { z } from 'zod';

/** Content blocks, as stored in conversation logs (Anthropic's form). */
export const TextBlockSchema = z.object({ type: z.literal('text'), text: z.string() });
export const ToolUseBlockSchema = z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() });
export const ToolResultBlockSchema = z.object({ type: z.literal('tool_result'), toolUseId: z.string(), content: z.string(), isError: z.boolean().optional() });
export const ContentBlockSchema = z.discriminatedUnion('type', [TextBlockSchema, ToolUseBlockSchema, ToolResultBlockSchema]);
export type TextBlock = z.infer<typeof TextBlockSchema>;
export type ToolUseBlock = z.infer<typeof ToolUseBlockSchema>;
export type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>;
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

export const UsageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
  cacheWrite1hTokens: z.number().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** How a turn ended without a reply: written as the turn's last message, in the responder's place (core's `TurnEnding`). */
export const TurnEndingSchema = z.object({
  status: z.enum(['failed', 'cancelled']),
  code: z.string(),
  error: z.string().optional(),
  withheld: z.array(z.string()).optional(),
});
export type TurnEnding = z.infer<typeof TurnEndingSchema>;

/**
 * One message of a directional conversation. The initiator's messages and all tool results have
 * role `user`; the responder's `assistant`. `author` is the participant who wrote it.
 */
export const WireMessageSchema = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.array(ContentBlockSchema),
  at: z.string(),
  usage: UsageSchema.optional(),
  model: z.string().optional(),
  medium: z.string().optional(),
  /** Set on a turn's ending (it failed or was cancelled): shown as what happened, not as a reply. */
  ending: TurnEndingSchema.optional(),
  author: z.string(),
});
export type WireMessage = z.infer<typeof WireMessageSchema>;

/** `GET /api/sessions/:id/conversations/:cid/messages?before=MSGID&limit=N`: oldest first; `more` when older ones exist. */
export const MessagesPageResponseSchema = z.object({ messages: z.array(WireMessageSchema), more: z.boolean() });
export type MessagesPageResponse = z.infer<typeof MessagesPageResponseSchema>;

/** `POST /api/sessions/:id/messages`: `to` defaults to the entry agent, `from` to the collective's user. */
export const SendMessageRequestSchema = z.object({
  text: z.string().min(1),
  to: z.string().min(1).optional(),
  conversation: z.string().min(1).optional(),
  from: z.string().min(1).optional(),
});
export type SendMessageRequest = z.infer<typeof SendMessageRequestSchema>;

/** 202: the turn runs in the server; its progress arrives as events. */
export const SendMessageResponseSchema = z.object({ accepted: z.literal(true), conversationId: z.string() });
export type SendMessageResponse = z.infer<typeof SendMessageResponseSchema>;

/** `POST /api/sessions/:id/cancel`: one conversation's turn, or every turn the server runs in the session. */
export const CancelRequestSchema = z.object({ conversationId: z.string().min(1).optional() });
export type CancelRequest = z.infer<typeof CancelRequestSchema>;
export const CancelResponseSchema = z.object({ cancelled: z.number() });
export type CancelResponse = z.infer<typeof CancelResponseSchema>;
