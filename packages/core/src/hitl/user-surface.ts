import type { Participant } from '../team/index.js';
import type { ConversationRef } from '../kernel/index.js';
import type { ApprovalAnswer, ApprovalView } from '../store/index.js';

/** A message someone (usually an agent, through `communicate`) sent to a user, as a surface shows it. */
export interface UserQuestion {
  /**
   * The question's id in the session's question log (`q_…`): another process
   * may answer it by this id (`session.answerQuestion`, `legion answer`).
   */
  id?: string | undefined;
  /** The user it is addressed to. */
  user: Participant;
  /** Who sent it: the last of `chain`. */
  from: string;
  text: string;
  /** Participants waiting on the answer, outermost first; ends with the sender. */
  chain: readonly string[];
  conversation: ConversationRef;
}

/**
 * One place a human answers from: a terminal, a browser tab, an MCP client.
 * Attached with `legion.attachUser(surface)`. Each question or approval is
 * offered to every attached surface that can take it; the first answer wins,
 * and the others see their `signal` abort with an `AnsweredElsewhereError`
 * naming the winner's medium. A surface that cannot answer throws (or
 * rejects): the others may still answer.
 */
export interface UserSurface {
  /** Names the surface in decisions and replies: `terminal`, `web`, `mcp`, … */
  medium: string;
  /** Answers a message sent to the user; omit on a surface that only approves. */
  ask?: ((question: UserQuestion, options: { signal: AbortSignal }) => Promise<string>) | undefined;
  /**
   * Decides every approval request of one model response at once; a request
   * left out of the answers is rejected. Omit on a surface that only answers questions.
   */
  approve?: ((requests: ApprovalView[], options: { signal: AbortSignal; approver: Participant }) => Promise<ApprovalAnswer[]>) | undefined;
}
