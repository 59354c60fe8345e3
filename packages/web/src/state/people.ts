import type { Participant } from '../api/wire.js';

/** Whether `id` is a person among `participants` (a user: their open turn is a question put to them). */
export function isUser(participants: readonly Pick<Participant, 'id' | 'type'>[], id: string): boolean {
  return participants.some((participant) => participant.id === id && participant.type === 'user');
}
