import { z } from 'zod';
import {
  APPROVAL_CHOICES,
  ApprovalChoiceSchema,
  type ApprovalChoice,
  type ApprovalChoiceWords,
  rememberOf,
  type ApprovalAnswer,
} from '../store/index.js';

// The one vocabulary of approval answers every surface offers (the REPL's card, `legion run`'s
// prompt, VS Code's buttons, the browser's, MCP's forms): the same four choices, with the same
// words, in the same order and under the same numbers, so a 3 typed in one place never means
// something else in another.
export { APPROVAL_CHOICES, ApprovalChoiceSchema, type ApprovalChoice, type ApprovalChoiceWords } from '../store/index.js';

/** The words of one choice. */
export function approvalChoice(choice: ApprovalChoice): ApprovalChoiceWords {
  return APPROVAL_CHOICES.find((words) => words.choice === choice)!;
}

/**
 * The choice a typed answer names: its number (`1`…`4`), or its word (`once`, `session`, `always`,
 * `reject`; `yes` and `no` too), case and spaces ignored. A letter is no answer: a key meant for
 * text must never decide.
 */
export function choiceOfTyped(typed: string): ApprovalChoice | undefined {
  const word = typed.trim().toLowerCase();
  if (word === 'yes') return 'once';
  if (word === 'no') return 'reject';
  return APPROVAL_CHOICES.find((words) => String(words.number) === word || words.choice === word)?.choice;
}

/** A surface's answer to one request, in the vocabulary's words. */
export const ApprovalChoiceAnswerSchema = z
  .object({
    id: z.string({ error: 'id is required: the approval request id (apr_…)' }).min(1, 'id is empty: give the approval request id (apr_…)'),
    choice: ApprovalChoiceSchema,
    /** Told to the agent; with `reject`. */
    reason: z.string().min(1).optional(),
    /** Narrows an `always` rule (`git status*`, `src/**`); left out, the rule matches exactly this call. */
    pattern: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((answer, context) => {
    if (answer.pattern !== undefined && answer.choice !== 'always')
      context.addIssue({ code: 'custom', path: ['pattern'], message: 'a pattern belongs to a rule: give it with choice "always"' });
  });
export type ApprovalChoiceAnswer = z.infer<typeof ApprovalChoiceAnswerSchema>;

/** The decision core records for a choice. */
export function answerOfChoice(answer: ApprovalChoiceAnswer): ApprovalAnswer {
  const { id, choice, reason, pattern } = answer;
  if (choice === 'reject') return { id, decision: 'reject', ...(reason !== undefined ? { reason } : {}) };
  const base = { id, decision: 'approve' as const, ...(reason !== undefined ? { reason } : {}) };
  if (choice === 'once') return base;
  if (choice === 'session') return { ...base, remember: 'session' };
  return { ...base, remember: 'always', ...(pattern !== undefined ? { pattern } : {}) };
}

/** The choice a recorded answer was (`always: true` read as the session it always meant). */
export function choiceOfAnswer(answer: Pick<ApprovalAnswer, 'decision' | 'always' | 'remember'>): ApprovalChoice {
  if (answer.decision === 'reject') return 'reject';
  return rememberOf(answer) ?? 'once';
}
