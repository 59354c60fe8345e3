import { MessageSchema } from '@legion-collective/core/vocabulary';
import { z } from 'zod';

// Content blocks, usage and turn endings are core's (`@legion-collective/core/vocabulary`), as stored
// in conversation logs: re-exported here so a client needs only the wire entry.
export {
  ContentBlockSchema,
  KeptFileChangeSchema,
  TextBlockSchema,
  ToolResultBlockSchema,
  ToolUseBlockSchema,
  TurnEndingSchema,
  UsageSchema,
} from '@legion-collective/core/vocabulary';
export type {
  ContentBlock,
  KeptFileChange,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
  TurnEnding,
  Usage,
} from '@legion-collective/core/vocabulary';

/**
 * One message of a directional conversation: core's message, plus `author`, the participant who
 * wrote it (a log keeps it beside the message; the API hands them out together). The initiator's
 * messages and all tool results have role `user`; the responder's `assistant`. `ending` is set on a
 * turn's ending (it failed or was cancelled): shown as what happened, not as a reply.
 */
export const WireMessageSchema = MessageSchema.extend({ author: z.string() });
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

/** `GET /api/sessions/:id/conversations/:cid/stream`: the reply streaming now, as far as it came. */
export const StreamTextResponseSchema = z.object({
  /** Who streams it (absent when nothing streams). */
  participantId: z.string().optional(),
  text: z.string(),
  /** The event stream's `seq` it is as of: it holds every `text:delta` up to this one; apply only those after it. */
  seq: z.number().int().nonnegative(),
});
export type StreamTextResponse = z.infer<typeof StreamTextResponseSchema>;
