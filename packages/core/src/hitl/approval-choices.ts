import { z } from 'zod';
import { ApprovalChoiceSchema, type ApprovalChoice, rememberOf, type ApprovalAnswer } from '../store/index.js';

// The one vocabulary of approval answers every surface offers (the REPL's card, `legion run`'s
// prompt, VS Code's buttons, MCP's forms): the same four choices, with the same words and the same
// keys, so an `a` typed in one place never means something else in another.
export { ApprovalChoiceSchema, type ApprovalChoice } from '../store/index.js';

/** How a surface shows one choice: its key (terminals), its label (buttons), what it does. */
export interface ApprovalChoiceWords {
  choice: ApprovalChoice;
  /** The one key a terminal takes for it. */
  key: string;
  /** A button's title. */
  label: string;
  /** The key line's words after `[key]`. */
  short: string;
  /** What it does, for help text and tooltips. */
  meaning: string;
}

export const APPROVAL_CHOICES: readonly ApprovalChoiceWords[] = [
  { choice: 'once', key: 'y', label: 'Approve once', short: 'approve once', meaning: 'this call runs; the next one asks again' },
  {
    choice: 'session',
    key: 's',
    label: 'Approve for this session',
    short: 'approve for this agent this session',
    meaning: 'this agent may run this tool without asking until the session ends',
  },
  {
    choice: 'always',
    key: 'a',
    label: 'Approve always',
    short: 'approve always (a rule)',
    meaning:
      'a rule: this agent may run this tool on calls matching its pattern without asking, in every session, until the rule is removed',
  },
  {
    choice: 'reject',
    key: 'n',
    label: 'Reject',
    short: 'reject with a reason',
    meaning: 'the call does not run; the reason is told to the agent',
  },
];

/** The words of one choice. */
export function approvalChoice(choice: ApprovalChoice): ApprovalChoiceWords {
  return APPROVAL_CHOICES.find((words) => words.choice === choice)!;
}

/** The choice a typed key or word names (`y`, `once`, `yes`; `n`, `reject`, `no`; …), case and spaces ignored. */
export function choiceOfKey(typed: string): ApprovalChoice | undefined {
  const word = typed.trim().toLowerCase();
  if (word === 'yes') return 'once';
  if (word === 'no') return 'reject';
  return APPROVAL_CHOICES.find((words) => words.key === word || words.choice === word)?.choice;
}

/** The key line a terminal shows under an approval: `[y] approve once  [s] …`, of the choices given (default all). */
export function approvalKeyLine(choices: readonly ApprovalChoice[] = APPROVAL_CHOICES.map((words) => words.choice)): string {
  return APPROVAL_CHOICES.filter((words) => choices.includes(words.choice))
    .map((words) => `[${words.key}] ${words.short}`)
    .join('  ');
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
