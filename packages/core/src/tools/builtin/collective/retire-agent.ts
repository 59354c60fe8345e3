import { z } from 'zod';
import { waitingParticipants } from '../../../session/index.js';
import { errorMessage } from '../../../kernel/index.js';
import { defineTool, type Tool } from '../../tool.js';
import type { CollectiveToolsOptions } from './collective-tool-options.js';

/** Takes an agent off the active roster; its file and history stay. */
export function createRetireAgentTool(options: Pick<CollectiveToolsOptions, 'collective'>): Tool {
  return defineTool({
    name: 'retire_agent',
    description:
      'Retire an agent: it leaves the active roster and can no longer be messaged, but its definition and conversations are kept. ' +
      'You cannot retire yourself, a participant that is waiting on this conversation, or a user.',
    input: () => z.object({ id: z.string().min(1).describe('Id of the agent to retire.') }),
    effect: 'collective',
    async execute(input, context) {
      const { collective } = options;
      const participant = collective.get(input.id);
      if (!participant || participant.status === 'retired')
        return { status: 'error', error: `No active participant "${input.id}". Known: ${collective.ids().join(', ') || '(none)'}.` };
      if (participant.type !== 'agent')
        return { status: 'error', error: `"${input.id}" is a ${participant.type}, not an agent; only agents can be retired.` };
      if (input.id === context.callerId) return { status: 'error', error: 'You cannot retire yourself.' };
      // An agent up the chain is mid-turn, waiting for this one's reply.
      if (waitingParticipants(context.frames).includes(input.id))
        return { status: 'error', error: `${input.id} is waiting on this conversation and cannot be retired now.` };
      try {
        collective.retire(input.id);
      } catch (error) {
        return { status: 'error', error: errorMessage(error) };
      }
      return { status: 'success', data: `Retired ${input.id}. Its definition and conversations are kept.` };
    },
  });
}
