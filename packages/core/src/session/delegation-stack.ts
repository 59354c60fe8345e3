import { randomUUID } from 'node:crypto';
import type { DelegationFrame } from '../store/index.js';

/** The participants waiting, outermost first: what depth limits, cycle checks and approver searches look at. */
export function waitingParticipants(frames: readonly DelegationFrame[]): string[] {
  return frames.map((frame) => frame.participantId);
}

/**
 * A turn's stack from what waits on its message: unchanged when it ends with
 * the sender's own frame (its communicate call); otherwise the sender starts
 * the chain here, waiting on the conversation it sent into; a chain begun here begins a new delegation tree.
 */
export function framesOfTurn(above: readonly DelegationFrame[], senderId: string, conversationId: string): readonly DelegationFrame[] {
  if (above.at(-1)?.participantId === senderId) return above;
  return [
    ...above,
    above.length === 0 ? { participantId: senderId, conversationId, tree: randomUUID() } : { participantId: senderId, conversationId },
  ];
}
