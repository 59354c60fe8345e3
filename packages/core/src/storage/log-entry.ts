import { z } from 'zod';
import { MessageSchema } from '../message.js';

export const CONVERSATION_FORMAT_VERSION = 1;

/** First line of every conversation file. */
export const HeaderEntrySchema = z.object({
  kind: z.literal('header'),
  version: z.number().int().positive(),
  conversationId: z.string(),
  initiator: z.string(),
  responder: z.string(),
  name: z.string().optional(),
  createdAt: z.string(),
});

export const MessageEntrySchema = MessageSchema.extend({ kind: z.literal('message') });

/** Something that happened in the conversation but is not part of the model's context. */
export const NoteEntrySchema = z.object({
  kind: z.literal('note'),
  level: z.enum(['info', 'error']),
  code: z.string().optional(),
  text: z.string(),
  at: z.string(),
});

export const LogEntrySchema = z.discriminatedUnion('kind', [HeaderEntrySchema, MessageEntrySchema, NoteEntrySchema]);

export type HeaderEntry = z.infer<typeof HeaderEntrySchema>;
export type NoteEntry = z.infer<typeof NoteEntrySchema>;
export type LogEntry = z.infer<typeof LogEntrySchema>;
