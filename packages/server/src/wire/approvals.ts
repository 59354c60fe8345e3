import { ApprovalViewSchema as CoreApprovalViewSchema, RememberChoiceSchema } from '@legion-collective/core/vocabulary';
import type { APPROVAL_CHOICES } from '@legion-collective/core/vocabulary';
import { z } from 'zod';

/**
 * A tool call waiting for (or given) someone's yes or no: core's approval view, plus what a client
 * cannot look up on its own — the session it belongs to, and the chain the request climbed
 * (outermost first, ending with the requester), which core keeps in the request's frames.
 */
export const ApprovalViewSchema = CoreApprovalViewSchema.extend({
  sessionId: z.string(),
  chain: z.array(z.string()),
});
export type ApprovalView = z.infer<typeof ApprovalViewSchema>;

/**
 * Core's one set of words for the four approval choices (its `APPROVAL_CHOICES`), in order, as a
 * type: a client that takes only the wire's types (the browser app) writes its copy of the words
 * `satisfies ApprovalChoiceWordsList`, and the compiler refuses a word, a number or an order that
 * is not core's.
 */
export type ApprovalChoiceWordsList = WordsOf<typeof APPROVAL_CHOICES>;
type WordsOf<Choices extends readonly unknown[]> = {
  readonly [Index in keyof Choices]: Choices[Index] extends { choice: string; number: number; label: string; detail: string }
    ? Pick<Choices[Index], 'choice' | 'number' | 'label' | 'detail'>
    : never;
};

/** `GET /api/sessions/:id/approvals?status=pending|all`: oldest first. */
export const ApprovalListResponseSchema = z.object({ approvals: z.array(ApprovalViewSchema) });
export type ApprovalListResponse = z.infer<typeof ApprovalListResponseSchema>;

/**
 * `GET /api/sessions/:id/approvals/:approvalId/file-change`: what a pending `file_write` or
 * `file_edit` would do to its file, read (by core's `fileChange`) through the tool's own path
 * resolution and the requester's reading policy. `shown`: the file as it is (`before`, null when
 * there is none yet) and as it would be; `not_shown`: why its current content is not shown (a
 * path the tool refuses, reading denied, binary or large, an edit that would fail on it). Null
 * for another tool, or a request no longer pending (the file has moved on since).
 */
export const FileChangeSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('shown'), path: z.string(), before: z.string().nullable(), after: z.string() }),
  z.object({ status: z.literal('not_shown'), path: z.string(), reason: z.string() }),
]);
export type FileChange = z.infer<typeof FileChangeSchema>;
export const FileChangeResponseSchema = z.object({ fileChange: FileChangeSchema.nullable() });
export type FileChangeResponse = z.infer<typeof FileChangeResponseSchema>;

/**
 * One decision. `remember`: `once` (this call), `session` (this tool for this requester for the
 * rest of the session), `always` (a persistent rule; `pattern` narrows it, e.g. `git status*`).
 */
export const ApprovalDecisionSchema = z.object({
  id: z.string().min(1),
  decision: z.enum(['approve', 'reject']),
  reason: z.string().optional(),
  remember: RememberChoiceSchema.optional(),
  pattern: z.string().min(1).optional(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/**
 * `POST /api/sessions/:id/approvals`. The requests of one model response are decided together:
 * one left out of `answers` is rejected.
 */
export const ApprovalAnswerRequestSchema = z.object({ answers: z.array(ApprovalDecisionSchema).min(1) });
export type ApprovalAnswerRequest = z.infer<typeof ApprovalAnswerRequestSchema>;
