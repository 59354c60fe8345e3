import type { ConversationRef } from '../kernel/index.js';
import type { DelegationFrame } from '../store/index.js';

/** Who is about to write (or read) a file: the tool's caller, its conversation and who waits on its turn. */
export interface ClaimCaller {
  callerId: string;
  conversation: ConversationRef;
  frames: readonly DelegationFrame[];
  /** The tool that writes (`file_write`, …): named in the conflict shown to the human. */
  tool: string;
}

/** A write may go ahead (its file is now claimed for the caller's turn), or it must not: why, and how to proceed. */
export type WriteClaimOutcome = { ok: true } | { ok: false; error: string };

/**
 * The files claimed by running turns, as a tool sees them (a port: the engine implements it over the
 * backend's `FileClaimStore`). A write claims its file for the caller's conversation until the turn
 * ends; another conversation's write to it is refused, naming the holder.
 */
export interface SessionFileClaims {
  /** Claims a workspace-relative path for the caller's turn before it writes there; refused while another agent's turn holds it. */
  claimForWrite(path: string, caller: ClaimCaller): Promise<WriteClaimOutcome>;
  /** A line for a read of a path another agent's turn holds (it may change under the reader); undefined when none does. */
  noteForRead(path: string, caller: ClaimCaller): Promise<string | undefined>;
}

/** What a conversation tells the claims of its turns: one starts (with what it is doing), one ends (its claims are given back). */
export interface TurnClaimHooks {
  enterTurn(conversation: ConversationRef, participantId: string, doing: string | undefined): void;
  leaveTurn(conversation: ConversationRef): Promise<void>;
}
