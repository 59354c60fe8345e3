import { LegionError, type AgentTemplate } from '@legion-collective/core';
import {
  agentTemplateNames,
  describeRemoteAgent,
  inspectParticipantFiles,
  loadAgentTemplate,
  remoteAccess,
  saveParticipantFile,
  type AgentCardSummary,
} from '@legion-collective/core/management';
import { resolveWorkspace } from '../workspace.js';
import { readRoster } from '../roster.js';
import { inert, inertLine, stdout, stderr } from '../render/terminal-text.js';

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
  /** A remote A2A agent's card URL: the participant is that agent (`type: "a2a"`). */
  a2a?: string;
  json?: boolean;
}

/**
 * `legion agents add ID`: a new agent from a template (`.legion/templates/`)
 * and/or flags, validated with the participant schema and created atomically;
 * an existing participant is never replaced.
 */
export async function agentsAddCommand(id: string | undefined, options: AgentAddOptions): Promise<number> {
  const root = resolveWorkspace(options.workspace);
  if (options.a2a !== undefined) return addRemoteAgent(root, id, options.a2a, options);
  if (id === undefined)
    throw new LegionError(
      'invalid_participant_id',
      'Give the new agent an id: legion agents add ID … (only --a2a URL takes it from the card).',
    );
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

/**
 * `legion agents add [ID] --a2a URL`: reads the remote agent's card (with the global config's credentials
 * for its origin), shows what it says it is, and writes an `a2a` participant for it. The card's words are
 * the remote's: shown inert, and its name becomes the id only once sanitised.
 */
async function addRemoteAgent(root: string, id: string | undefined, url: string, options: AgentAddOptions): Promise<number> {
  const card = await describeRemoteAgent(url, remoteAccess(readRoster(root, process.env).config, process.env));
  const participantId = id ?? idFromName(card.name);
  const remote = {
    id: participantId,
    type: 'a2a',
    name: options.name ?? card.name,
    ...((options.description ?? card.description) ? { description: options.description ?? card.description } : {}),
    ...(options.useFor !== undefined ? { useFor: options.useFor } : {}),
    url,
  };
  const participant = saveParticipantFile(root, participantId, `${JSON.stringify(remote, null, 2)}\n`, { create: true });
  if (options.json) {
    stdout.json({ participant, card });
    return 0;
  }
  stdout.write(describeCard(card));
  stdout.write(
    `Created .legion/collective/participants/${participantId}.json. Talk to it with: legion run --to ${participantId} "…"\n` +
      `Credentials it needs go in the global config: "remoteAgents": { "${new URL(url).origin}": { "headers": { "Authorization": "Bearer \${env:TOKEN}" } } }\n`,
  );
  return 0;
}

function describeCard(card: AgentCardSummary): string {
  const lines = [
    `Remote agent ${inertLine(card.name)}${card.version ? ` ${inertLine(card.version)}` : ''}${card.streaming ? ' (streams its answers)' : ''}`,
  ];
  if (card.description) lines.push(`  ${inert(card.description).replace(/\n/g, '\n  ')}`);
  if (card.skills.length > 0) {
    lines.push('  Skills:');
    for (const skill of card.skills)
      lines.push(`    - ${inertLine(skill.name)}${skill.description ? `: ${inertLine(skill.description)}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A participant id from a card's name: "Remote Painter (EU)" → "remote-painter-eu". */
export function idFromName(name: string): string {
  const id = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 64)
    .replace(/[-.]+$/, '');
  return id === '' ? 'remote-agent' : id;
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
