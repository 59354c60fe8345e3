import { z } from 'zod';

export const PolicyModeSchema = z.enum(['auto', 'requires_approval', 'deny']);
export type PolicyMode = z.infer<typeof PolicyModeSchema>;

/** A scoped rule: applies when every condition it names holds. */
export const PolicyRuleSchema = z
  .object({
    mode: PolicyModeSchema,
    /** Globs (relative to the workspace) that every path-like argument must match. */
    paths: z.array(z.string().min(1)).min(1).optional(),
    /** Regular expressions, by argument name, that the argument's text must match. */
    args: z.record(z.string(), z.string()).optional(),
    /** Shown to the model (and the approver) when the rule denies or asks. */
    reason: z.string().optional(),
    /**
     * The rule applies only to a call that will run in the OS sandbox (`shell_run`, `process_start`,
     * shell workspace tools, while the sandbox works here): `{ "mode": "auto", "whenSandboxed": true }`
     * lets confined commands run without asking, and the same command asks again wherever it would run unconfined.
     */
    whenSandboxed: z.literal(true).optional(),
  })
  .strict();
export type PolicyRule = z.infer<typeof PolicyRuleSchema>;

/** `auto | requires_approval | deny`, or rules (first match wins) with a mode for everything else. */
export const ToolPolicySchema = z.union([
  PolicyModeSchema,
  z
    .object({
      mode: PolicyModeSchema.optional(),
      rules: z.array(PolicyRuleSchema).default([]),
      reason: z.string().optional(),
    })
    .strict(),
]);
export type ToolPolicy = z.infer<typeof ToolPolicySchema>;

/** Tool name or glob (`file_*`, `mcp__github__*`, `*`) → policy. */
export const PoliciesSchema = z.record(z.string().min(1), ToolPolicySchema);
export type Policies = z.infer<typeof PoliciesSchema>;

/** Who a participant may approve for: everyone and everything, or rules by requester and tool. */
export const ApprovalAuthoritySchema = z.union([
  z.literal('*'),
  z.literal('none'),
  z.array(
    z
      .object({
        /** Participant id or glob of the requester. */
        requester: z.string().min(1).default('*'),
        /** Tool names or globs. */
        tools: z.array(z.string().min(1)).default(['*']),
      })
      .strict(),
  ),
]);
export type ApprovalAuthority = z.infer<typeof ApprovalAuthoritySchema>;

/** What the engine decided for one call, and why. */
export type PolicyDecision = {
  mode: PolicyMode;
  reason: string;
  source: string;
  /** Only a person (a user) may approve it, never an agent approver: the call would change Legion's own state. */
  personOnly?: true;
};
