import { rmSync } from 'node:fs';
import { LEGION_DIR, LegionError, type Participant, type Permission, type ResolvedConfig } from '@legion-collective/core';
import { participantFilePath } from '@legion-collective/core/management';
import { confirm } from '../confirm.js';
import { columns } from '../render/columns.js';
import { styleFor } from '../render/style.js';
import { delegatorsOf, readRoster, type Roster } from '../roster.js';
import { resolveWorkspace } from '../workspace.js';
import { stdout, stderr, inert, inertLine } from '../render/terminal-text.js';

interface AgentsOptions {
  workspace?: string | undefined;
  json?: boolean;
  all?: boolean;
}

/** `legion agents list`: every participant with what it is for, its model, its tools and whom it may talk to. */
export async function agentsListCommand(options: AgentsOptions): Promise<number> {
  const roster = readRoster(resolveWorkspace(options.workspace));
  const shown = roster.participants.filter((participant) => options.all || participant.status === 'active');
  reportProblems(roster);
  if (options.json) {
    stdout.json({ participants: shown.map((participant) => summary(participant, roster.config)), problems: roster.problems });
    return 0;
  }
  if (shown.length === 0) {
    stdout.write('No participants yet. Add one with: legion agents add ID --system-prompt "…"\n');
    return 0;
  }
  const style = styleFor(process.stdout);
  const rows = [['ID', 'TYPE', 'MODEL', 'TOOLS', 'TALKS TO', 'DESCRIPTION'].map(style.bold)];
  for (const participant of shown) {
    const line = summary(participant, roster.config);
    rows.push([
      // A participant file may be a model's (create_agent): every field of it made inert.
      participant.status === 'retired' ? style.dim(`${inertLine(participant.id)} (retired)`) : inertLine(participant.id),
      inertLine(participant.type),
      inertLine(line.model ?? '-'),
      inertLine(line.tools ?? '-'),
      inertLine(line.delegation ?? '-'),
      inertLine(participant.description || participant.name),
    ]);
  }
  stdout.write(`${columns(rows, { maxWidth: 60 })}\n`);
  return 0;
}

/** `legion agents show ID`: the participant file as Legion reads it, with its effective model. */
export async function agentsShowCommand(id: string, options: AgentsOptions): Promise<number> {
  const roster = readRoster(resolveWorkspace(options.workspace));
  const participant = findParticipant(roster, id);
  if (options.json) {
    stdout.json({ participant, effective: summary(participant, roster.config) });
    return 0;
  }
  const style = styleFor(process.stdout);
  const line = summary(participant, roster.config);
  const rows: string[][] = [
    ['id', participant.id],
    ['type', participant.type],
    ['name', participant.name],
    ['status', participant.status],
    ['description', participant.description || '-'],
    ['use for', participant.useFor ?? '-'],
    ['file', line.file],
  ].map(([key, value]) => [key!, inertLine(value!)]);
  if (participant.type === 'agent') {
    rows.push(['model', `${inertLine(line.model ?? '')}${participant.model ? '' : style.dim(' (defaultModel from the config)')}`]);
    rows.push(['tools', inertLine(line.tools ?? '-')], ['talks to', inertLine(line.delegation ?? '-')]);
    if (participant.policies) rows.push(['policies', inertLine(JSON.stringify(participant.policies))]);
    if (participant.limits) rows.push(['limits', inertLine(JSON.stringify(participant.limits))]);
  }
  if (participant.type === 'mock') rows.push(['responses', String(participant.responses.length)]);
  if (participant.type === 'a2a') rows.push(['agent card', inertLine(participant.url)]);
  const delegators = delegatorsOf(participant.id, roster.participants);
  if (delegators.length > 0) rows.push(['reached by', inertLine(delegators.join(', '))]);
  stdout.write(`${columns(rows.map(([key, value]) => [style.bold(key!), value!]))}\n`);
  if (participant.type === 'agent') stdout.write(`\n${style.bold('system prompt')}\n${inert(participant.systemPrompt)}\n`);
  return 0;
}

/**
 * `legion agents rm ID`: deletes the participant file. Refuses the last user
 * (nobody could talk to the collective) and an agent that other agents
 * delegate to by name (they would point at nobody) unless --force; asks on a
 * terminal unless --yes. Sessions that mention it stay as they are.
 */
export async function agentsRmCommand(id: string, options: AgentsOptions & { force?: boolean; yes?: boolean }): Promise<number> {
  const root = resolveWorkspace(options.workspace);
  const roster = readRoster(root);
  const path = participantFilePath(root, id);
  const report = roster.files.find((file) => file.id === id);
  if (!report)
    throw new LegionError(
      'participant_not_found',
      `No participant "${id}": there is no ${relativeFile(roster, path)}. Known: ${roster.files.map((file) => file.id).join(', ') || '(none)'}.`,
    );
  const participant = report.participant;
  const blockers: string[] = [];
  if (participant?.type === 'user' && participant.status === 'active') {
    const users = roster.participants.filter((other) => other.type === 'user' && other.status === 'active');
    if (users.length === 1)
      blockers.push(`"${id}" is the only user: without one, nobody can send the collective a message or answer its approvals`);
  }
  const delegators = delegatorsOf(id, roster.participants);
  if (delegators.length > 0)
    blockers.push(
      `${delegators.map((other) => `"${other}"`).join(', ')} delegate${delegators.length === 1 ? 's' : ''} to "${id}" by name and would lose it (edit their "delegation" first)`,
    );
  if (roster.config.entryAgent === id)
    blockers.push(
      `"${id}" is the entry agent in the config (messages would go to another agent; set "entryAgent" with "legion config set entryAgent ID")`,
    );
  if (blockers.length > 0 && !options.force) {
    throw new LegionError('participant_in_use', `Not removing "${id}": ${blockers.join('; ')}. Pass --force to remove it anyway.`);
  }
  if (process.stdin.isTTY && !options.yes) {
    const warning = blockers.length > 0 ? ` (${blockers.join('; ')})` : '';
    if (!(await confirm(inert(`Remove ${report.file}${warning}?`)))) {
      stderr.write('Nothing removed.\n');
      return 1;
    }
  }
  rmSync(path);
  stdout.write(`Removed ${report.file}. Conversations with "${id}" stay in their sessions.\n`);
  return 0;
}

export function findParticipant(roster: Roster, id: string): Participant {
  const report = roster.files.find((file) => file.id === id);
  if (report?.error) throw report.error;
  if (!report?.participant)
    throw new LegionError(
      'participant_not_found',
      `No participant "${id}". Known: ${roster.files.map((file) => file.id).join(', ') || '(none)'}. List them with "legion agents list".`,
    );
  return report.participant;
}

interface Summary {
  id: string;
  type: Participant['type'];
  name: string;
  description: string;
  status: Participant['status'];
  file: string;
  model?: string;
  tools?: string;
  delegation?: string;
}

function summary(participant: Participant, config: ResolvedConfig): Summary {
  const base = {
    id: participant.id,
    type: participant.type,
    name: participant.name,
    description: participant.description,
    status: participant.status,
    file: `${LEGION_DIR}/collective/participants/${participant.id}.json`,
  };
  if (participant.type !== 'agent') return base;
  const model = participant.model ?? config.defaultModel;
  return {
    ...base,
    model: `${model.provider}/${model.model}`,
    tools: permission(participant.tools),
    delegation: permission(participant.delegation),
  };
}

function permission(value: Permission): string {
  return typeof value === 'string' ? value : value.join(', ') || '(none)';
}

function reportProblems(roster: Roster): void {
  for (const problem of roster.problems) stderr.write(`warning: ${problem}\n`);
}

function relativeFile(roster: Roster, path: string): string {
  return path.startsWith(`${roster.root}/`) ? path.slice(roster.root.length + 1) : path;
}
