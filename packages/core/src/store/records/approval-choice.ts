import { z } from 'zod';

/**
 * The four answers every surface offers an approval (the REPL's card, `legion run`'s prompt, the
 * browser, VS Code, MCP's forms): once, for this session, always (a rule), reject. This is the one
 * definition the wire formats derive from, and `APPROVAL_CHOICES` below the one set of words for them.
 */
export const ApprovalChoiceSchema = z.enum(['once', 'session', 'always', 'reject']);
export type ApprovalChoice = z.infer<typeof ApprovalChoiceSchema>;

/** What an approval may ask to be remembered as: the approving choices. */
export const RememberChoiceSchema = ApprovalChoiceSchema.exclude(['reject']);
export type RememberChoice = z.infer<typeof RememberChoiceSchema>;

/**
 * How every surface shows the choices, in this order: a terminal numbers them (the menu's 1–4, a
 * digit that means the same choice everywhere), a browser or an editor titles its buttons with the
 * label. Plain data, written once: the browser, which may import only the wire's types, has its
 * copy checked against this one's type (`ApprovalChoiceWordsList` on the wire).
 */
export const APPROVAL_CHOICES = [
  {
    choice: 'once',
    number: 1,
    label: 'Approve once',
    detail: 'this call only',
    meaning: 'this call runs; the next one asks again',
  },
  {
    choice: 'session',
    number: 2,
    label: 'Approve for this session',
    detail: 'this agent, this tool, until the session ends',
    meaning: 'this agent may run this tool without asking until the session ends',
  },
  {
    choice: 'always',
    number: 3,
    label: 'Approve always',
    detail: 'saves a rule: every session, until removed',
    meaning:
      'a rule: this agent may run this tool on calls matching its pattern without asking, in every session, until the rule is removed',
  },
  {
    choice: 'reject',
    number: 4,
    label: 'Reject',
    detail: 'with a reason, told to the agent',
    meaning: 'the call does not run; the reason is told to the agent',
  },
] as const satisfies ReadonlyArray<{ choice: ApprovalChoice; number: number; label: string; detail: string; meaning: string }>;

/** How a surface shows one choice. */
export type ApprovalChoiceWords = (typeof APPROVAL_CHOICES)[number];
