import { z } from 'zod';
import { SandboxNoteSchema } from '../../kernel/vocabulary.js';

// The one definition of an approval request as surfaces show it (`list_approvals`, `legion
// approvals`, the server's API): built only where it is validated (the vocabulary entry), since the
// engine needs the type alone.

/** A request with its decision, if any: what `list_approvals` and UIs show. */
export const ApprovalViewSchema = z.object({
  id: z.string(),
  /** When the request was recorded (ISO-8601). */
  at: z.string(),
  /** Whose tool call it is. */
  requester: z.string(),
  /** Who is asked (the nearest up the chain with authority; a user may step in). */
  approver: z.string(),
  tool: z.string(),
  input: z.unknown(),
  /** Why approval is needed (the policy that asked). */
  reason: z.string(),
  /** For a command a model wrote: whether it will run in the OS sandbox, and why not (absent for other tools). */
  sandbox: SandboxNoteSchema.optional(),
  conversationId: z.string(),
  status: z.enum(['pending', 'approved', 'rejected']),
  decidedBy: z.string().optional(),
  decidedAt: z.string().optional(),
  decisionReason: z.string().optional(),
  /** The surface (`terminal`, `web`, …) the decision was given on, if a user gave it on one. */
  decisionMedium: z.string().optional(),
  /** The "approve always" rule the decision made, if it made one. */
  decisionRuleId: z.string().optional(),
  /** Rejected because the turn that asked ended (stopped, or failed) before anyone decided: nobody rejected it. */
  cancelled: z.literal(true).optional(),
  /** The worktree the requester's turn works in (`isolation: "worktree"`): a file change it asks for is to that tree, not the main one. */
  worktree: z.string().optional(),
});
export type ApprovalView = z.infer<typeof ApprovalViewSchema>;
