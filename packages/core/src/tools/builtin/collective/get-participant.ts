import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import type { CollectiveToolsOptions } from './collective-tool-options.js';

/** One participant's full definition. */
export function createGetParticipantTool(options: Pick<CollectiveToolsOptions, 'collective'>): Tool {
  return defineTool({
    name: 'get_participant',
    description:
      "Show one participant's full definition (for an agent: system prompt, model, tool and delegation permissions, limits), retired ones included. " +
      'Use list_participants for the roster.',
    input: () => z.object({ id: z.string().min(1).describe('Participant id.') }),
    concurrent: true,
    effect: 'read',
    async execute(input) {
      const participant = options.collective.get(input.id);
      if (!participant)
        return { status: 'error', error: `No participant "${input.id}". Known: ${options.collective.ids().join(', ') || '(none)'}.` };
      return { status: 'success', data: participant };
    },
  });
}
