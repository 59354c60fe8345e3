import { z } from 'zod';
import { ApprovalChoiceSchema } from './approval-choice.js';
import type { ApprovalView } from './approval-view.js';
import { DelegationFrameSchema, type DelegationFrame } from './delegation-frame.js';
import { SandboxNoteSchema } from '../../kernel/index.js';

/** The version of request records this Legion writes; older ones are migrated when read (approval-migration.ts). */
export const APPROVAL_REQUEST_VERSION = 2;

/** The fields of every version of a request record (a function: the schemas below are built on first use). */
const requestFields = () => ({
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
  /**
   * For a command a model wrote: whether it runs in the OS sandbox, as it stood when asked. Added
   * without a version bump, like `medium`: records without it load as they are.
   */
  sandbox: SandboxNoteSchema.optional(),
});

/** A tool call waiting for someone's yes or no. */
export const ApprovalRequestRecordSchema = z.lazy(() =>
  z.object({
    ...requestFields(),
    version: z.literal(APPROVAL_REQUEST_VERSION),
    /** Who waits on the requester's turn, outermost first, ending with its sender: read back when the turn resumes. */
    frames: z.array(DelegationFrameSchema),
  }),
);

/**
 * Version 1 (Legion before the delegation stack was one list): the waiting
 * participants only, with `link` records beside it saying which communicate
 * call waits on which conversation. Read, never written.
 */
export const ApprovalRequestRecordV1Schema = z.lazy(() =>
  z.object({
    ...requestFields(),
    version: z.literal(1),
    chain: z.array(z.string()),
  }),
);

export const ApprovalDecisionRecordSchema = z.lazy(() =>
  z.object({
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
     * `always`: the approver also made an "approve always" rule (a file in
     * `.legion/collective/approval-rules/`), `ruleId`, with `pattern`. Written
     * by the one decider whose decision won; added without a version bump, like `medium`.
     */
    remember: z.literal('always').optional(),
    ruleId: z.string().optional(),
    pattern: z.string().optional(),
    /**
     * The surface the decision was given on (`terminal`, `web`, …), when a user
     * gave it. Added without a version bump: files without it load as they are,
     * and an older Legion reading a newer file still sees the decision.
     */
    medium: z.string().optional(),
    /**
     * The turn that asked was cancelled before anyone decided: the request is settled as rejected,
     * so nothing of that turn runs later. `decidedBy` is who started the cancelled chain. Added
     * without a version bump, like `medium`.
     */
    cancelled: z.literal(true).optional(),
  }),
);

/**
 * Version 1 only: which communicate call waited on which conversation. Read to
 * migrate version 1 requests to their frames, never written.
 */
export const ApprovalLinkRecordSchema = z.lazy(() =>
  z.object({
    kind: z.literal('link'),
    version: z.literal(1),
    at: z.string(),
    parentConversationId: z.string(),
    toolUseId: z.string(),
    childConversationId: z.string(),
  }),
);

/** What this Legion appends. */
export const ApprovalRecordSchema = z.lazy(() => z.discriminatedUnion('kind', [ApprovalRequestRecordSchema, ApprovalDecisionRecordSchema]));

/** What an approvals log may hold: today's records and those of older Legions. */
export const StoredApprovalRecordSchema = z.lazy(() =>
  z.union([ApprovalRecordSchema, ApprovalRequestRecordV1Schema, ApprovalLinkRecordSchema]),
);

export type ApprovalRequestRecord = z.infer<typeof ApprovalRequestRecordSchema>;
export type ApprovalRequestRecordV1 = z.infer<typeof ApprovalRequestRecordV1Schema>;
export type ApprovalDecisionRecord = z.infer<typeof ApprovalDecisionRecordSchema>;
export type ApprovalLinkRecord = z.infer<typeof ApprovalLinkRecordSchema>;
export type ApprovalRecord = z.infer<typeof ApprovalRecordSchema>;
export type StoredApprovalRecord = z.infer<typeof StoredApprovalRecordSchema>;

export type { ApprovalView } from './approval-view.js';

/** A decision as a participant (or a user's surface) gives it. */
export const ApprovalAnswerSchema = z.lazy(() =>
  z
    .object({
      id: z.string(),
      decision: z.enum(['approve', 'reject']),
      reason: z.string().optional(),
      /** The same as `remember: 'session'` (kept for callers written before `remember`). */
      always: z.boolean().optional(),
      /**
       * Approve more than this call: `session` — this tool for this requester for
       * the rest of the session; `always` — a persistent rule (requester × tool ×
       * `pattern`), in every session and process until it is removed. Only a user may make one.
       */
      remember: ApprovalChoiceSchema.extract(['session', 'always']).optional(),
      /**
       * The rule's pattern, with `remember: 'always'`: a glob over each command
       * (`git status*`) or every path (`src/**`). Left out, the rule matches
       * exactly this call's command or path. It must match this call.
       */
      pattern: z.string().min(1).optional(),
    })
    .superRefine((answer, context) => {
      const remember = rememberOf(answer);
      if (answer.always && answer.remember && answer.remember !== 'session') {
        context.addIssue({
          code: 'custom',
          path: ['always'],
          message: '"always: true" means remember: "session"; give one of them, not both',
        });
      }
      if (remember && answer.decision !== 'approve')
        context.addIssue({
          code: 'custom',
          path: ['remember'],
          message: 'only an approval is remembered; leave "remember" out of a rejection',
        });
      if (answer.pattern !== undefined && remember !== 'always')
        context.addIssue({ code: 'custom', path: ['pattern'], message: 'a pattern belongs to a rule: give it with remember: "always"' });
    }),
);
export type ApprovalAnswer = z.infer<typeof ApprovalAnswerSchema>;

/** What an answer asks to remember, `always: true` read as the session it always meant. */
export function rememberOf(answer: Pick<ApprovalAnswer, 'always' | 'remember'>): 'session' | 'always' | undefined {
  return answer.remember ?? (answer.always ? 'session' : undefined);
}

/** A request as surfaces show it, with its decision if there is one: the one place a view is made. */
export function approvalView(request: ApprovalRequestRecord, decision: ApprovalDecisionRecord | undefined): ApprovalView {
  return {
    id: request.id,
    at: request.at,
    requester: request.requester,
    approver: request.approver,
    tool: request.tool,
    input: request.input,
    reason: request.reason,
    ...(request.sandbox !== undefined ? { sandbox: request.sandbox } : {}),
    conversationId: request.conversationId,
    status: decision ? decision.decision : 'pending',
    decidedBy: decision?.decidedBy,
    decidedAt: decision?.at,
    decisionReason: decision?.reason,
    decisionMedium: decision?.medium,
    decisionRuleId: decision?.ruleId,
    ...(decision?.cancelled ? { cancelled: true as const } : {}),
    worktree: worktreeOf(request.frames),
  };
}

/** The innermost isolated delegation's worktree among a request's frames (the one its turn works in). */
function worktreeOf(frames: readonly DelegationFrame[]): string | undefined {
  for (let index = frames.length - 1; index >= 0; index--) if (frames[index]!.worktree !== undefined) return frames[index]!.worktree;
  return undefined;
}
