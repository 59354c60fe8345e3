import type { ApprovalView } from '../api/wire.js';

/**
 * The approval card's sandbox line, in core's words (its `sandboxLine`; sandbox-text.test.ts keeps
 * the two in step): the app takes the wire's types only, not core's code.
 */
export function sandboxText(note: NonNullable<ApprovalView['sandbox']>): string {
  if (note.kind === 'sandboxed') return `runs sandboxed: ${note.detail}`;
  if (note.kind === 'unsandboxed') return `NOT sandboxed: ${note.detail}`;
  return `will NOT run: ${note.detail}`;
}
