/**
 * Core's one vocabulary of approval answers (`APPROVAL_CHOICES` in @legion-collective/core), as the
 * browser's buttons. The browser knows the server only by its wire types, so the words are written
 * here; `approval-choices.test.ts` holds them equal to core's, so they cannot drift apart.
 */
export const APPROVAL_BUTTONS = [
  { choice: 'once', label: 'Approve once', decision: 'approve', remember: 'once' },
  { choice: 'session', label: 'Approve for this session', decision: 'approve', remember: 'session' },
  { choice: 'always', label: 'Approve always', decision: 'approve', remember: 'always' },
  { choice: 'reject', label: 'Reject', decision: 'reject' },
] as const;

export type ApprovalButton = (typeof APPROVAL_BUTTONS)[number];

/** The answer the server takes for a choice (the wire's `remember`). */
export type Answer = { id: string; decision: 'approve' | 'reject'; reason?: string; remember?: 'once' | 'session' | 'always' };
