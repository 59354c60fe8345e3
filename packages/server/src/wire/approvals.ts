import { z } from 'zod';

/** A tool call waiting for (or given) someone's yes or no. */
export const ApprovalViewSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  conversationId: z.string(),
  at: z.string(),
  /** Whose tool call it is. */
  requester: z.string(),
  /** Who is asked (the nearest up the chain with authority; a user may step in). */
  approver: z.string(),
  tool: z.string(),
  input: z.unknown(),
  /** Why approval is needed (the policy that asked). */
  reason: z.string(),
  /** The chain the request climbed, outermost first, ending with the requester. */
  chain: z.array(z.string()),
  status: z.enum(['pending', 'approved', 'rejected']),
  decidedBy: z.string().optional(),
  decidedAt: z.string().optional(),
  decisionReason: z.string().optional(),
  /** The surface (`terminal`, `web`, …) the decision was given on. */
  decisionMedium: z.string().optional(),
});
export type ApprovalView = z.infer<typeof ApprovalViewSchema>;

/** `GET /api/sessions/:id/approvals?status=pending|all`: oldest first. */
export const ApprovalListResponseSchema = z.object({ approvals: z.array(ApprovalViewSchema) });
export type ApprovalListResponse = z.infer<typeof ApprovalListResponseSchema>;

/**
 * One decision. `remember`: `once` (this call), `session` (this tool for this requester for the
 * rest of the session), `always` (a persistent rule; `pattern` narrows it, e.g. `git status*`).
 */
export const ApprovalDecisionSchema = z.object({
  id: z.string().min(1),
  decision: z.enum(['approve', 'reject']),
  reason: z.string().optional(),
  remember: z.enum(['once', 'session', 'always']).optional(),
  pattern: z.string().min(1).optional(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/**
 * `POST /api/sessions/:id/approvals`. The requests of one model response are decided together:
 * one left out of `answers` is rejected.
 */
export const ApprovalAnswerRequestSchema = z.object({ answers: z.array(ApprovalDecisionSchema).min(1) });
export type ApprovalAnswerRequest = z.infer<typeof ApprovalAnswerRequestSchema>;
