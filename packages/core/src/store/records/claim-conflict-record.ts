import { z } from 'zod';
// The kernel's zod-only door: this record is in the vocabulary, which reaches nothing but zod.
import { ClaimHolderSchema } from '../../kernel/vocabulary.js';

/** The version of conflict-log records this Legion writes. */
export const CLAIM_CONFLICT_RECORD_VERSION = 1;

/**
 * A write refused because another turn holds the file's claim, recorded in the refused caller's
 * session as well as told on the bus (`claim:conflict`): events stay in their process, and this
 * record is what lets every other process following the session (a `legion serve` beside a
 * `legion run`, a second REPL) show the human the same conflict.
 */
export const ClaimConflictRecordSchema = z.object({
  kind: z.literal('conflict'),
  version: z.literal(CLAIM_CONFLICT_RECORD_VERSION),
  /** `cc_` and 12 hex digits: what a follower knows its own process's conflicts by. */
  id: z.string(),
  at: z.string(),
  /** The refused caller's conversation, `<initiator>__<responder>[__<name>]`. */
  conversationId: z.string(),
  /** The agent whose write was refused. */
  participantId: z.string(),
  /** The tool it wrote with. */
  tool: z.string(),
  /** Workspace-relative. */
  path: z.string(),
  /** The claim that refused it. */
  holder: ClaimHolderSchema,
});
export type ClaimConflictRecord = z.infer<typeof ClaimConflictRecordSchema>;
