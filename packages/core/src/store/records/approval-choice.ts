import { z } from 'zod';

/**
 * The four answers every surface offers an approval (the REPL's card, `legion run`'s prompt, the
 * browser, VS Code, MCP's forms): once, for this session, always (a rule), reject. Their words and
 * keys are the driver's `APPROVAL_CHOICES`; this is the one definition the wire formats derive from.
 */
export const ApprovalChoiceSchema = z.enum(['once', 'session', 'always', 'reject']);
export type ApprovalChoice = z.infer<typeof ApprovalChoiceSchema>;

/** What an approval may ask to be remembered as: the approving choices. */
export const RememberChoiceSchema = ApprovalChoiceSchema.exclude(['reject']);
export type RememberChoice = z.infer<typeof RememberChoiceSchema>;
