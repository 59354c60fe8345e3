import type { ApprovalChoiceWordsList } from '../api/wire.js';

/**
 * Core's one vocabulary of approval answers (`APPROVAL_CHOICES` in @legion-collective/core): the
 * same four choices, words and order as the terminal's numbered menu and VS Code's buttons. The
 * browser knows the server only by its wire types, so the words are written here; the compiler
 * holds them to core's (`satisfies` the wire's `ApprovalChoiceWordsList`), so they cannot drift apart.
 */
const WORDS = [
  { choice: 'once', number: 1, label: 'Approve once', detail: 'this call only' },
  { choice: 'session', number: 2, label: 'Approve for this session', detail: 'this agent, this tool, until the session ends' },
  { choice: 'always', number: 3, label: 'Approve always', detail: 'saves a rule: every session, until removed' },
  { choice: 'reject', number: 4, label: 'Reject', detail: 'with a reason, told to the agent' },
] as const satisfies ApprovalChoiceWordsList;

/** The browser's approval buttons: core's words, and the answer each sends (the wire's `decision` and `remember`). */
export const APPROVAL_BUTTONS = WORDS.map((words) =>
  words.choice === 'reject'
    ? { ...words, decision: 'reject' as const }
    : { ...words, decision: 'approve' as const, remember: words.choice },
);

export type ApprovalButton = (typeof APPROVAL_BUTTONS)[number];

/** The answer the server takes for a choice (the wire's `remember`). */
export type Answer = { id: string; decision: 'approve' | 'reject'; reason?: string; remember?: 'once' | 'session' | 'always' };
