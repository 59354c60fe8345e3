import { z } from 'zod';
import { LimitsSchema, ModelConfigSchema, PermissionSchema } from '../../../team/index.js';

/**
 * The fields of an agent that agents may set through create_agent and
 * modify_agent, named as in the participant file. Approval policies and
 * approval authority are left out on purpose: an agent must not be able to
 * grant another (or itself) the power to skip or give approvals; people set
 * those in the files.
 */
function buildAgentFieldsSchema() {
  return z.object({
    name: z.string().min(1).describe('Display name.'),
    description: z.string().describe('What the agent is, in a sentence.'),
    useFor: z.string().describe('What others should bring to it; shown in their system prompts.'),
    systemPrompt: z.string().min(1).describe('Its instructions: role, how to work, what to report back.'),
    model: ModelConfigSchema.describe('{ provider, model, temperature?, maxTokens?, baseURL? }; omit to use the workspace default model.'),
    tools: PermissionSchema.describe('Tools it may use: "all", "none", or names and globs such as ["file_*", "shell_run"].'),
    delegation: PermissionSchema.describe('Whom it may communicate with: "all", "none", or participant ids.'),
    limits: LimitsSchema.partial().describe('Overrides of maxDepth, maxIterations, toolTimeoutMs, maxRepeatedToolCalls.'),
  });
}

let agentFields: ReturnType<typeof buildAgentFieldsSchema> | undefined;
/**
 * Built on first use (a collective tool offered to a model), not when core loads: its copies of the
 * limits and model schemas took 2 ms of every command's start, `legion sessions` included.
 */
export const agentFieldsSchema = (): ReturnType<typeof buildAgentFieldsSchema> => (agentFields ??= buildAgentFieldsSchema());
/** The names shown to models in errors and descriptions. */
export const agentFieldNames = (): string[] => Object.keys(agentFieldsSchema().shape);

/**
 * Fields of a participant file that no tool sets, and why: the tool result
 * says so instead of the field vanishing (the input schemas accept unknown
 * keys only to be able to name them).
 */
const FILE_ONLY_FIELDS: Readonly<Record<string, string>> = {
  approvalAuthority:
    'an agent cannot give an agent, itself included, the power to approve tool calls; a person sets it in the participant file',
  policies: 'an agent cannot set the approval policies that decide what runs without asking; a person sets them in the participant file',
  context: 'the context budget is set by a person in the participant file',
  status: 'retire an agent with retire_agent',
  type: 'these tools make and change agents only',
  version: 'Legion writes the file format version',
};

/**
 * Splits a tool's input into the agent fields it may set (its own keys, such
 * as `id`, left out) and a note per other field
 * the model sent (`approvalAuthority (an agent cannot …)`), for the result's
 * "Refused:" list.
 */
export function splitAgentFields(
  input: Record<string, unknown>,
  toolKeys: readonly string[],
): { fields: Record<string, unknown>; refused: string[] } {
  const fields: Record<string, unknown> = {};
  const refused: string[] = [];
  for (const [name, value] of Object.entries(input)) {
    if (toolKeys.includes(name)) continue;
    if (agentFieldNames().includes(name)) fields[name] = value;
    else if (value !== undefined)
      refused.push(`${name} (${FILE_ONLY_FIELDS[name] ?? `not a field an agent has; the fields are ${agentFieldNames().join(', ')}`})`);
  }
  return { fields, refused };
}
