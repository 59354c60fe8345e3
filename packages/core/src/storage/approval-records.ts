import { z } from 'zod';
import { DelegationFrameSchema } from './delegation-frame.js';

/** The version of request records this Legion writes; older ones are migrated when read (approval-migration.ts). */
export const APPROVAL_REQUEST_VERSION = 2;

const requestFields = {
  kind: z.literal('request'),
  id: z.string(),
  at: z.string(),
  /** Calls of one model response share a batch: they are asked together. */
  batchId: z.string(),
  requester: z.string(),
  /** The participant up the chain who is asked (the nearest with authority). */
  approver: z.string(),
  tool: z.string(),
  input: z.unknown(),
  toolUseId: z.string(),
  conversationId: z.string(),
  /** Why approval is needed (the policy that asked). */
  reason: z.string(),
};

/** A tool call waiting for someone's yes or no. */
export const ApprovalRequestRecordSchema = z.object({
  ...requestFields,
  version: z.literal(APPROVAL_REQUEST_VERSION),
  /** Who waits on the requester's turn, outermost first, ending with its sender: read back when the turn resumes. */
  frames: z.array(DelegationFrameSchema),
});

/**
 * Version 1 (Legion before the delegation stack was one list): the waiting
 * participants only, with `link` records beside it saying which communicate
 * call waits on which conversation. Read, never written.
 */
export const ApprovalRequestRecordV1Schema = z.object({
  ...requestFields,
  version: z.literal(1),
  chain: z.array(z.string()),
});

export const ApprovalDecisionRecordSchema = z.object({
  kind: z.literal('decision'),
  version: z.literal(1),
  requestId: z.string(),
  at: z.string(),
  decision: z.enum(['approved', 'rejected']),
  reason: z.string().optional(),
  decidedBy: z.string(),
  /** "Always allow this tool for this agent" for the rest of the session. */
  always: z.boolean().optional(),
  /**
   * The surface the decision was given on (`terminal`, `web`, …), when a user
   * gave it. Added without a version bump: files without it load as they are,
   * and an older Legion reading a newer file still sees the decision.
   */
  medium: z.string().optional(),
});

/**
 * Version 1 only: which communicate call waited on which conversation. Read to
 * migrate version 1 requests to their frames, never written.
 */
export const ApprovalLinkRecordSchema = z.object({
  kind: z.literal('link'),
  version: z.literal(1),
  at: z.string(),
  parentConversationId: z.string(),
  toolUseId: z.string(),
  childConversationId: z.string(),
});

/** What this Legion appends. */
export const ApprovalRecordSchema = z.discriminatedUnion('kind', [ApprovalRequestRecordSchema, ApprovalDecisionRecordSchema]);

/** What an approvals log may hold: today's records and those of older Legions. */
export const StoredApprovalRecordSchema = z.union([ApprovalRecordSchema, ApprovalRequestRecordV1Schema, ApprovalLinkRecordSchema]);

export type ApprovalRequestRecord = z.infer<typeof ApprovalRequestRecordSchema>;
export type ApprovalRequestRecordV1 = z.infer<typeof ApprovalRequestRecordV1Schema>;
export type ApprovalDecisionRecord = z.infer<typeof ApprovalDecisionRecordSchema>;
export type ApprovalLinkRecord = z.infer<typeof ApprovalLinkRecordSchema>;
export type ApprovalRecord = z.infer<typeof ApprovalRecordSchema>;
export type StoredApprovalRecord = z.infer<typeof StoredApprovalRecordSchema>;

/** A request with its decision, if any: what `list_approvals` and UIs show. */
export interface ApprovalView {
  id: string;
  at: string;
  requester: string;
  approver: string;
  tool: string;
  input: unknown;
  reason: string;
  conversationId: string;
  status: 'pending' | 'approved' | 'rejected';
  decidedBy?: string | undefined;
  decidedAt?: string | undefined;
  decisionReason?: string | undefined;
  /** The surface the decision was given on, if a user gave it on one. */
  decisionMedium?: string | undefined;
}

/** A decision as a participant (or a user's surface) gives it. */
export const ApprovalAnswerSchema = z.object({
  id: z.string(),
  decision: z.enum(['approve', 'reject']),
  reason: z.string().optional(),
  /** Approve this tool for this requester for the rest of the session. */
  always: z.boolean().optional(),
});
export type ApprovalAnswer = z.infer<typeof ApprovalAnswerSchema>;
