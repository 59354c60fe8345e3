import { z } from 'zod';
import { LimitsSchema, ModelConfigSchema, PermissionSchema } from '../../../collective/participant.js';

/**
 * The fields of an agent that agents may set through create_agent and
 * modify_agent, named as in the participant file. Approval policies and
 * approval authority are left out on purpose: an agent must not be able to
 * grant another (or itself) the power to skip or give approvals; people set
 * those in the files.
 */
export const AgentFieldsSchema = z.object({
  name: z.string().min(1).describe('Display name.'),
  description: z.string().describe('What the agent is, in a sentence.'),
  useFor: z.string().describe('What others should bring to it; shown in their system prompts.'),
  systemPrompt: z.string().min(1).describe('Its instructions: role, how to work, what to report back.'),
  model: ModelConfigSchema.describe('{ provider, model, temperature?, maxTokens?, baseURL? }; omit to use the workspace default model.'),
  tools: PermissionSchema.describe('Tools it may use: "all", "none", or names and globs such as ["file_*", "shell_run"].'),
  delegation: PermissionSchema.describe('Whom it may communicate with: "all", "none", or participant ids.'),
  limits: LimitsSchema.partial().describe('Overrides of maxDepth, maxIterations, toolTimeoutMs, maxRepeatedToolCalls.'),
});
/** The names shown to models in errors and descriptions. */
export const AGENT_FIELD_NAMES = Object.keys(AgentFieldsSchema.shape);
