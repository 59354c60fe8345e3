import { z } from 'zod';
import { isValidIdPart } from '../team/index.js';

/** The version of rule files this Legion writes. */
export const APPROVAL_RULE_VERSION = 1;

/** `rule_` and letters, digits, `-`: the id is also the file name. */
const RULE_ID = /^rule_[A-Za-z0-9-]{1,64}$/;

export function isValidRuleId(id: string): boolean {
  return RULE_ID.test(id);
}

/**
 * An "approve always" given ahead of time: calls of `tool` by `participant`
 * whose arguments match `pattern` run without asking, where a policy would
 * have asked. It never turns a `deny` into anything else. `pattern` is a glob:
 * over each simple command of a command line for tools that run commands
 * (`git status*`), over every path for tools that take paths (`src/**`);
 * left out, it covers every such command or path the rule could (a plain
 * command line, a path inside the workspace), and every call of other tools.
 */
export const ApprovalRuleSchema = z.lazy(() =>
  z
    .object({
      version: z.literal(APPROVAL_RULE_VERSION),
      id: z.string().regex(RULE_ID, 'an id is "rule_" followed by letters, digits or "-", and matches the file name'),
      /** The participant whose calls it approves (the requester). */
      participant: z.string().refine(isValidIdPart, 'a participant id: letters, digits, ".", "-", single "_"'),
      /** The tool's exact name. */
      tool: z.string().min(1),
      pattern: z.string().min(1).optional(),
      createdAt: z.iso.datetime({ offset: true }),
      /** Who gave it: a user participant's id. */
      createdBy: z.string().min(1),
      /** The surface it was given on (`terminal`, `web`, …). */
      medium: z.string().min(1).optional(),
      reason: z.string().optional(),
      /** The approval answer it came from, if it came from one. */
      fromRequest: z.object({ sessionId: z.string(), requestId: z.string() }).strict().optional(),
    })
    .strict(),
);
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;
