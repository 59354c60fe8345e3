import { z } from 'zod';
import type { Collective } from '../../team/index.js';
import { defineTool, type Tool } from '../tool.js';

/** Who is in the collective, compactly: id, kind, name and what each is for. */
export function createListParticipantsTool(collective: Collective): Tool {
  return defineTool({
    name: 'list_participants',
    description: 'List the participants of the collective (id, type, name, what each is for). Read-only.',
    input: () =>
      z.object({
        type: z.enum(['agent', 'user', 'mock']).optional().describe('Only participants of this type.'),
      }),
    concurrent: true,
    effect: 'read',
    async execute(input) {
      const participants = collective
        .list()
        .filter((participant) => !input.type || participant.type === input.type)
        .map((participant) => ({
          id: participant.id,
          type: participant.type,
          name: participant.name,
          useFor: participant.useFor ?? participant.description,
        }));
      return { status: 'success', data: participants };
    },
  });
}
