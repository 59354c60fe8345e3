import { textOf } from '../message.js';
import { waitingParticipants } from '../session/delegation-stack.js';
import type { ParticipantRuntime, RuntimeOutcome, TurnContext } from '../session/turn.js';
import type { UserSurfaces } from './UserSurfaces.js';

/**
 * Answers for users: a message to the user is offered to every attached
 * surface and the first answer is the reply, written with the medium it came
 * from. With no surface that can answer (a headless run), the sender is told
 * plainly that the user cannot be asked now, so it can decide and say so.
 */
export class UserRuntime implements ParticipantRuntime {
  constructor(private readonly surfaces: UserSurfaces) {}

  async handleMessage(turn: TurnContext): Promise<RuntimeOutcome> {
    const user = turn.participant;
    const chain = waitingParticipants(turn.frames);
    const outcome = await this.surfaces.ask(
      { user, from: chain.at(-1) ?? turn.conversation.ref.initiator, text: turn.message ? textOf(turn.message) : '', chain, conversation: turn.conversation.ref },
      turn.signal,
    );
    if (outcome.status === 'unanswered') {
      const failed = outcome.failures.map((failure) => `${failure.medium}: ${failure.error}`).join('; ');
      return {
        status: 'error',
        code: 'user_unavailable',
        error:
          `${user.id} is not available: ${failed ? `no surface could answer (${failed})` : 'no surface that answers questions is attached (a headless run)'}. ` +
          'Make a reasonable assumption, say which in your reply, and continue.',
      };
    }
    const message = await turn.conversation.append({ role: 'assistant', content: [{ type: 'text', text: outcome.value }], medium: outcome.medium }, user.id);
    return { status: 'success', reply: outcome.value, message };
  }
}
