import { LegionError, type AgentTemplate } from '@legion-collective/core';
import { agentTemplateNames, inspectParticipantFiles, loadAgentTemplate, saveParticipantFile } from '@legion-collective/core/management';
import { resolveWorkspace } from '../workspace.js';
import { stdout, stderr } from '../render/terminal-text.js';

export interface AgentAddOptions {
  workspace?: string | undefined;
  template?: string;
  name?: string;
  description?: string;
  useFor?: string;
  systemPrompt?: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  tools?: string;
  delegation?: string;
  json?: boolean;
}

/**
 * `legion agents add ID`: a new agent from a template (`.legion/templates/`)
 * and/or flags, validated with the participant schema and created atomically;
 * an existing participant is never replaced.
 */
export async function agentsAddCommand(id: string, options: AgentAddOptions): Promise<number> {
  const root = resolveWorkspace(options.workspace);
  const template: Partial<AgentTemplate> = options.template ? loadAgentTemplate(root, options.template) : {};
  const systemPrompt = options.systemPrompt ?? template.systemPrompt;
  if (systemPrompt === undefined) {
    const templates = agentTemplateNames(root);
    throw new LegionError(
      'agent_needs_prompt',
      `An agent needs a system prompt: pass --system-prompt "…"${templates.length > 0 ? `, or start from a template with --template NAME (${templates.join(', ')})` : ''}.`,
    );
  }
  if ((options.provider === undefined) !== (options.model === undefined)) {
    throw new LegionError(
      'agent_model_incomplete',
      "Give --provider and --model together (e.g. --provider anthropic --model claude-sonnet-4-6), or neither to use the config's defaultModel.",
    );
  }
  const model =
    options.provider !== undefined && options.model !== undefined
      ? { provider: options.provider, model: options.model, ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }) }
      : template.model;
  const agent = {
    ...template,
    id,
    type: 'agent',
    name: options.name ?? template.name ?? id,
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.useFor !== undefined ? { useFor: options.useFor } : {}),
    systemPrompt,
    ...(model ? { model } : {}),
    ...(options.tools !== undefined ? { tools: permissionFlag(options.tools) } : {}),
    ...(options.delegation !== undefined ? { delegation: permissionFlag(options.delegation) } : {}),
  };
  const participant = saveParticipantFile(root, id, `${JSON.stringify(agent, null, 2)}\n`, { create: true });
  if (participant.type === 'agent' && Array.isArray(participant.delegation)) {
    const known = new Set(inspectParticipantFiles(root).map((report) => report.id));
    const unknown = participant.delegation.filter((target) => !/[*?[\]{}!]/.test(target) && !known.has(target));
    if (unknown.length > 0)
      stderr.write(
        `warning: "delegation" names ${unknown.map((target) => `"${target}"`).join(', ')}, not a participant of this workspace (yet).\n`,
      );
  }
  if (options.json) stdout.json({ participant });
  else stdout.write(`Created .legion/collective/participants/${id}.json. Talk to it with: legion run --to ${id} "…"\n`);
  return 0;
}

/** `all`, `none`, or a comma-separated list of names and globs. */
function permissionFlag(value: string): 'all' | 'none' | string[] {
  const trimmed = value.trim();
  if (trimmed === 'all' || trimmed === 'none') return trimmed;
  return trimmed
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}
