import { z } from 'zod';
import { MessageSchema } from '../../kernel/index.js';

/**
 * 2: compaction entries say which messages they summarized, what they kept, the
 * tokens before and after and the summarizer (`CompactionEntrySchema`). A version 1
 * log reads as before: its compaction entries (summary only) keep nothing from before them.
 */
export const CONVERSATION_FORMAT_VERSION = 2;

/** First line of every conversation file. */
export const HeaderEntrySchema = z.lazy(() =>
  z.object({
    kind: z.literal('header'),
    version: z.number().int().positive(),
    conversationId: z.string(),
    initiator: z.string(),
    responder: z.string(),
    name: z.string().optional(),
    createdAt: z.string(),
  }),
);

export const MessageEntrySchema = z.lazy(() => MessageSchema.extend({ kind: z.literal('message') }));

/** Something that happened in the conversation but is not part of the model's context. */
export const NoteEntrySchema = z.lazy(() =>
  z.object({
    kind: z.literal('note'),
    level: z.enum(['info', 'error']),
    code: z.string().optional(),
    text: z.string(),
    at: z.string(),
  }),
);

/** Why a compaction was made: a threshold was crossed, someone asked for it, or the provider said the prompt was too long. */
export const CompactionReasonSchema = z.enum(['auto', 'manual', 'overflow']);
export type CompactionReason = z.infer<typeof CompactionReasonSchema>;

/** A user or peer message carried over a compaction verbatim (outside the summary). */
export const CarriedMessageSchema = z.lazy(() => z.object({ messageId: z.string(), at: z.string(), text: z.string() }));
export type CarriedMessage = z.infer<typeof CarriedMessageSchema>;

/**
 * A compaction point: the model's context starts here, with this summary standing
 * for every message up to `throughMessageId` (they all stay in the log, unread by a
 * resume), followed by the `keptMessages` messages logged between that one and this
 * entry (the protected recent part), then whatever comes after.
 *
 * Version 1 entries had only `at`, `summary` and `throughMessageId`; they read as
 * keeping nothing from before them (`keptMessages` 0), as version 1 did.
 */
export const CompactionEntrySchema = z.lazy(() =>
  z.object({
    kind: z.literal('compaction'),
    at: z.string(),
    summary: z.string(),
    /** The newest message the summary covers. */
    throughMessageId: z.string().optional(),
    /** Messages before this entry that stay in the context after it (version 2; 0 for version 1 entries). */
    keptMessages: z.number().int().nonnegative().default(0),
    /** The messages this compaction summarized (the previous summary aside). */
    compacted: z.object({ firstMessageId: z.string(), lastMessageId: z.string(), count: z.number().int().nonnegative() }).optional(),
    tokensBefore: z.number().int().nonnegative().optional(),
    tokensAfter: z.number().int().nonnegative().optional(),
    /** The model that wrote the summary. */
    summarizer: z.object({ provider: z.string(), model: z.string() }).optional(),
    reason: CompactionReasonSchema.optional(),
    /** The last user and peer messages, re-injected verbatim after the compaction (`keepRecentMessages`). */
    carried: z.array(CarriedMessageSchema).default([]),
  }),
);

export const LogEntrySchema = z.lazy(() =>
  z.discriminatedUnion('kind', [HeaderEntrySchema, MessageEntrySchema, NoteEntrySchema, CompactionEntrySchema]),
);

export type HeaderEntry = z.infer<typeof HeaderEntrySchema>;
export type MessageEntry = z.infer<typeof MessageEntrySchema>;
export type NoteEntry = z.infer<typeof NoteEntrySchema>;
export type CompactionEntry = z.infer<typeof CompactionEntrySchema>;
/** A compaction entry as written: the fields version 1 lacked may be left out. */
export type CompactionEntryInput = z.input<typeof CompactionEntrySchema>;
export type LogEntry = z.infer<typeof LogEntrySchema>;
