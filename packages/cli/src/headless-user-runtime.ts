import type { ParticipantRuntime, RuntimeOutcome, TurnContext } from '@legion-collective/core';

/**
 * Answers for the user when nobody is at a terminal (`legion run`): the agent
 * is told plainly that the user cannot be asked now, so it can decide and say so.
 */
export class HeadlessUserRuntime implements ParticipantRuntime {
  async handleMessage(turn: TurnContext): Promise<RuntimeOutcome> {
    return {
      status: 'error',
      code: 'user_unavailable',
      error: `${turn.participant.id} is not available in this headless run (legion run). Make a reasonable assumption, say which in your reply, and continue.`,
    };
  }
}
