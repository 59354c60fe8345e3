import { z } from 'zod';
import type { ParticipantInput } from '../../../team/index.js';
import { errorMessage } from '../../../kernel/index.js';
import { defineTool, type Tool } from '../../tool.js';
import { agentFieldNames, agentFieldsSchema, splitAgentFields } from './agent-fields.js';
import { refusedNote } from './create-agent.js';
import { limitGrant } from './grant-limits.js';
import { modifyRefusal } from './agent-authority.js';
import { DEFAULT_CONFIG } from '../../../team/index.js';
import type { CollectiveToolsOptions } from './collective-tool-options.js';

/** Fields that may be removed (set to null) to fall back to their defaults. */
const REMOVABLE = ['useFor', 'model', 'limits'] as const;

/** Changes some fields of an existing agent; the rest stay as they are. */
export function createModifyAgentTool(options: Pick<CollectiveToolsOptions, 'collective' | 'workspaceLimits'>): Tool {
  const shape = agentFieldsSchema().partial().shape;
  return defineTool({
    name: 'modify_agent',
    description:
      'Change an existing agent: give its id and only the fields to change (name, description, useFor, systemPrompt, model, tools, delegation, limits); ' +
      'the others keep their values. Set useFor, model or limits to null to remove them (the model then falls back to the workspace default). ' +
      'The result is validated before it is saved; the id and type cannot change. ' +
      'You may change yourself or an agent that holds no more than you (tools, delegation, policies), never one that approves tool calls.',
    input: () =>
      z
        .object({
          id: z.string().min(1).describe('Id of the agent to change.'),
          ...shape,
          useFor: shape.useFor.nullable(),
          model: shape.model.nullable(),
          limits: shape.limits.nullable(),
        })
        .loose(),
    effect: 'collective',
    async execute(input, context) {
      const { collective } = options;
      const { id } = input;
      const { fields: changes, refused: notFields } = splitAgentFields(input, ['id']);
      const current = collective.get(id);
      if (!current || current.status === 'retired')
        return { status: 'error', error: `No active participant "${id}". Known: ${collective.ids().join(', ') || '(none)'}.` };
      if (current.type !== 'agent')
        return { status: 'error', error: `"${id}" is a ${current.type}, not an agent; only agents can be modified.` };
      const caller = collective.get(context.callerId);
      const workspaceLimits = options.workspaceLimits ?? DEFAULT_CONFIG.limits;
      const refusal = modifyRefusal(caller, current, workspaceLimits);
      if (refusal) return { status: 'error', error: `${id} was not changed: ${refusal}.` };
      const changed = Object.entries(changes)
        .filter(([, value]) => value !== undefined)
        .map(([name]) => name);
      if (changed.length === 0 && notFields.length > 0)
        return { status: 'error', error: `${id} was not changed.${refusedNote(notFields)}` };
      if (changed.length === 0)
        return { status: 'error', error: `Nothing to change: give at least one of ${agentFieldNames().join(', ')}.` };
      const limited = limitGrant(collective, caller, Object.fromEntries(changed.map((name) => [name, changes[name]])), {
        creating: false,
        workspaceLimits,
      });
      const grant = { fields: limited.fields, refused: [...limited.refused, ...notFields] };
      const applied = changed.filter((name) => name in grant.fields);
      if (applied.length === 0) return { status: 'error', error: `${id} was not changed.${refusedNote(grant.refused)}` };
      const next: Record<string, unknown> = { ...current };
      for (const name of applied) next[name] = grant.fields[name];
      for (const name of REMOVABLE) if (next[name] === null) delete next[name];
      try {
        collective.save(next as ParticipantInput);
      } catch (error) {
        return { status: 'error', error: `${id} was not changed: ${errorMessage(error)}` };
      }
      const self = id === context.callerId ? ' (yourself: the changes apply from your next message)' : '';
      return { status: 'success', data: `Modified ${id}${self}: ${applied.join(', ')}.${refusedNote(grant.refused)}` };
    },
  });
}
