import { z } from 'zod';
import type { AgentTemplate, ParticipantInput } from '../../../team/index.js';
import { ParticipantIdSchema, delegationTargets, DEFAULT_CONFIG } from '../../../team/index.js';
import { errorMessage } from '../../../kernel/index.js';
import { defineTool, type Tool } from '../../tool.js';
import { agentFieldsSchema, splitAgentFields } from './agent-fields.js';
import { limitGrant } from './grant-limits.js';
import type { CollectiveToolsOptions } from './collective-tool-options.js';

/** Spawns a new agent into the collective (saved under .legion/collective/participants/). */
export function createCreateAgentTool(options: Pick<CollectiveToolsOptions, 'collective' | 'workspaceLimits'>): Tool {
  return defineTool({
    name: 'create_agent',
    description:
      'Create a new agent in the collective, saved to the roster so that it persists. Give an id (letters, digits, ".", "-", single "_"), ' +
      'a name and a systemPrompt, or a template name (from .legion/templates) whose fields the others override. ' +
      'It gets no more than you have: tools, delegation and limits within yours, your policies, and no approval authority. ' +
      'Keep its tools and delegation as narrow as its job needs. An id already used (even by a retired participant) is refused. ' +
      'After it exists, send it work with communicate.',
    input: () =>
      agentFieldsSchema()
        .partial()
        .extend({
          id: ParticipantIdSchema.describe('New unique participant id.'),
          template: z.string().min(1).optional().describe('Start from this template of .legion/templates/<name>.json.'),
        })
        .loose(),
    effect: 'collective',
    async execute(input, context) {
      const { collective } = options;
      const { fields: agentFields, refused: notFields } = splitAgentFields(input, ['id', 'template']);
      const fields = { ...agentFields, id: input.id };
      const templateName = input.template;
      const existing = collective.get(input.id);
      if (existing)
        return { status: 'error', error: `The id "${input.id}" is taken (${existing.type}, ${existing.status}). Choose another id.` };
      let template: AgentTemplate | undefined;
      if (templateName) {
        try {
          template = collective.loadTemplate(templateName);
        } catch (error) {
          return { status: 'error', error: errorMessage(error) };
        }
      }
      const caller = collective.get(context.callerId);
      // What the template and the call give together is limited to what the caller has.
      const grant = limitGrant(
        collective,
        caller,
        { ...template, ...withoutUndefined(fields) },
        {
          creating: true,
          template: templateName,
          workspaceLimits: options.workspaceLimits ?? DEFAULT_CONFIG.limits,
        },
      );
      const definition = { ...grant.fields, type: 'agent' } as ParticipantInput;
      let created;
      try {
        created = collective.save(definition);
      } catch (error) {
        return { status: 'error', error: `The agent was not created: ${errorMessage(error)}` };
      }
      const reachable =
        caller?.type !== 'agent' || delegationTargets(caller, collective).some((participant) => participant.id === created.id);
      return {
        status: 'success',
        data:
          `Created agent ${created.id} (${created.name})${templateName ? ` from template ${templateName}` : ''}.` +
          (reachable
            ? ` Send it work with communicate { "to": "${created.id}" }.`
            : ' Your delegation permission does not include it, so you cannot message it yourself.') +
          refusedNote([...grant.refused, ...notFields]),
      };
    },
  });
}

/** The refused part of a grant, for the tool result: nothing is dropped silently. */
export function refusedNote(refused: readonly string[]): string {
  return refused.length === 0 ? '' : ` Refused: ${refused.join('; ')}.`;
}

/** Optional fields the model left out must not erase a template's values. */
function withoutUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
