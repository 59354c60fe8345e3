// `legion doctor`'s checks of the workspace: its files, config layers, participants, templates, rules, tools, context.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, Legion, LEGION_DIR, type McpServerConfig, groupedNumber } from '@legion-collective/core';
import {
  agentTemplateNames,
  globalConfigPath,
  inspectApprovalRuleFiles,
  inspectWorkspaceTools,
  loadAgentTemplate,
} from '@legion-collective/core/management';
import { type Roster } from '../roster.js';
import type { DoctorCheck } from './doctor-report.js';
import { openLegion } from '../workspace.js';

export function workspaceFileChecks(root: string): DoctorCheck[] {
  const legion = join(root, LEGION_DIR);
  const checks: DoctorCheck[] = [{ name: 'workspace', category: 'workspace', status: 'passed', detail: legion }];
  const participants = join(legion, 'collective', 'participants');
  checks.push(
    existsSync(participants)
      ? {
          name: 'participants folder',
          category: 'workspace',
          status: 'passed',
          detail: `${LEGION_DIR}/collective/participants/`,
          file: `${LEGION_DIR}/collective/participants`,
        }
      : {
          name: 'participants folder',
          category: 'workspace',
          status: 'failed',
          error: `${LEGION_DIR}/collective/participants/ is missing`,
          fix: 'run "legion init" (it creates what is missing and keeps every existing file)',
          file: `${LEGION_DIR}/collective/participants`,
        },
  );
  const gitignore = join(legion, '.gitignore');
  const ignored = existsSync(gitignore)
    ? readFileSync(gitignore, 'utf8')
        .split('\n')
        .map((line) => line.trim())
    : [];
  const missing = ['sessions/', 'run/'].filter((entry) => !ignored.includes(entry) && !ignored.includes(entry.slice(0, -1)));
  checks.push(
    missing.length === 0
      ? {
          name: 'git ignores session logs',
          category: 'workspace',
          status: 'passed',
          detail: `${LEGION_DIR}/.gitignore lists sessions/ and run/`,
          file: `${LEGION_DIR}/.gitignore`,
        }
      : {
          name: 'git ignores session logs',
          category: 'workspace',
          status: 'failed',
          error: `${LEGION_DIR}/.gitignore does not list ${missing.join(' and ')}: session logs and machine state could be committed`,
          fix: `add ${missing.map((entry) => `"${entry}"`).join(' and ')} on lines of their own to ${LEGION_DIR}/.gitignore`,
          file: `${LEGION_DIR}/.gitignore`,
        },
  );
  return checks;
}

export function configChecks(roster: Roster, env: NodeJS.ProcessEnv): DoctorCheck[] {
  return roster.layers.map((layer): DoctorCheck => {
    const file = display(roster, layer.file);
    const name = `${layer.source} config ${file}`;
    if (layer.error) return { name, category: 'config', status: 'failed', file, ...explain(layer.error) };
    if (!layer.exists) {
      const detail =
        layer.source === 'global'
          ? `not present (optional: keys can come from the environment; ${globalConfigPath(env)} is where it would be)`
          : 'not present (optional: built-in defaults apply)';
      return { name, category: 'config', status: 'passed', detail, file };
    }
    return {
      name,
      category: 'config',
      status: 'passed',
      detail: `valid; sets ${Object.keys(layer.layer ?? {}).join(', ') || 'nothing'}`,
      file,
    };
  });
}

export function participantChecks(roster: Roster): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const active = roster.participants.filter((participant) => participant.status === 'active');
  const ids = new Set(active.map((participant) => participant.id));
  // A target whose file is broken is that file's failure, reported once, not every delegator's.
  const known = new Set([...ids, ...roster.files.filter((report) => report.error).map((report) => report.id)]);
  for (const report of roster.files) {
    const name = `participant ${report.file}`;
    if (report.error) {
      checks.push({ name, category: 'participants', status: 'failed', file: report.file, ...explain(report.error) });
      continue;
    }
    const participant = report.participant!;
    const unknown =
      participant.type === 'agent' && Array.isArray(participant.delegation)
        ? participant.delegation.filter((target) => !/[*?[\]{}!]/.test(target) && !known.has(target))
        : [];
    if (unknown.length > 0) {
      checks.push({
        name,
        category: 'participants',
        status: 'failed',
        file: report.file,
        error: `"delegation" names ${unknown.map((id) => `"${id}"`).join(', ')}, not an active participant`,
        fix: `correct or remove ${unknown.length === 1 ? 'it' : 'them'} in "delegation" (active participants: ${[...ids].join(', ')})`,
      });
      continue;
    }
    checks.push({
      name,
      category: 'participants',
      status: 'passed',
      detail: `${participant.type}${participant.status === 'retired' ? ' (retired)' : ''}: ${participant.name}`,
      file: report.file,
    });
  }
  const users = active.filter((participant) => participant.type === 'user');
  const agents = active.filter((participant) => participant.type === 'agent');
  checks.push(
    users.length > 0
      ? { name: 'a user participant', category: 'participants', status: 'passed', detail: users.map((user) => user.id).join(', ') }
      : {
          name: 'a user participant',
          category: 'participants',
          status: 'failed',
          error: 'the collective has no active user: nobody can send it a message or answer its approvals',
          fix: 'add one: { "id": "user", "type": "user", "name": "You" } in .legion/collective/participants/user.json',
        },
  );
  const entry = roster.config.entryAgent;
  if (entry !== undefined) {
    const target = active.find((participant) => participant.id === entry);
    checks.push(
      target && target.type !== 'user'
        ? { name: 'entry agent', category: 'participants', status: 'passed', detail: entry }
        : {
            name: 'entry agent',
            category: 'participants',
            status: 'failed',
            error: `entryAgent "${entry}" is not an active agent, so messages go to ${agents[0]?.id ?? 'nobody'} instead`,
            fix: `set it to one of ${agents.map((agent) => agent.id).join(', ') || '(no agents yet)'}: legion config set entryAgent ID`,
          },
    );
  }
  return checks;
}

export function templateChecks(root: string): DoctorCheck[] {
  return agentTemplateNames(root).map((name): DoctorCheck => {
    const file = `${LEGION_DIR}/templates/${name}.json`;
    try {
      loadAgentTemplate(root, name);
      return {
        name: `template ${file}`,
        category: 'workspace',
        status: 'passed',
        detail: `"legion agents add ID --template ${name}"`,
        file,
      };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return { name: `template ${file}`, category: 'workspace', status: 'failed', file, ...explain(error) };
    }
  });
}

/** Each broken "approve always" rule file (it approves nothing until fixed), then how many rules hold. */
export function approvalRuleChecks(root: string): DoctorCheck[] {
  const files = inspectApprovalRuleFiles(root);
  const checks: DoctorCheck[] = files.flatMap(({ file, error }): DoctorCheck[] =>
    error ? [{ name: `approval rule ${file}`, category: 'workspace', status: 'failed', file, ...explain(error) }] : [],
  );
  const rules = files.filter((entry) => entry.rule).length;
  checks.push({
    name: 'approval rules',
    category: 'workspace',
    status: 'passed',
    detail:
      rules > 0
        ? `${rules} in ${LEGION_DIR}/collective/approval-rules/ ("legion approvals rules")`
        : 'none ("legion approve ID --rule" makes one)',
  });
  return checks;
}

export function workspaceToolChecks(root: string, env: NodeJS.ProcessEnv): DoctorCheck[] {
  const directory = join(root, LEGION_DIR, 'tools');
  const report = inspectWorkspaceTools(directory, { workspaceRoot: root, env });
  const checks: DoctorCheck[] = report.problems.map((problem) => {
    const file = problem.file.startsWith(`${root}/`) ? problem.file.slice(root.length + 1) : problem.file;
    const [error, fix] = problem.message.split(/\. Fix: /);
    return {
      name: `workspace tool ${file}`,
      category: 'tools',
      status: 'failed',
      file,
      error: error ?? problem.message,
      fix: fix ?? `correct ${file} (see docs/guide/agents-and-collective.md, "Workspace tools")`,
    };
  });
  checks.push({
    name: 'workspace tools',
    category: 'tools',
    status: 'passed',
    detail:
      report.tools.length > 0
        ? `${report.tools.length} loaded: ${report.tools.map((tool) => tool.name).join(', ')}`
        : `none defined in ${LEGION_DIR}/tools/`,
  });
  return checks;
}

/**
 * Per agent, what its requests carry before any message: the tool definitions' tokens and their
 * share of the window (and the system prompt's), with a warning where the model is not in the
 * table (its window is a guess) or the definitions alone pass the profile's budget.
 */
export async function contextChecks(root: string, roster: Roster, env: NodeJS.ProcessEnv, countMcp: boolean): Promise<DoctorCheck[]> {
  const agents = roster.participants.filter((participant) => participant.type === 'agent' && participant.status === 'active');
  if (agents.length === 0) return [];
  if (roster.layers.some((layer) => layer.error) || roster.files.some((report) => report.error)) {
    return [
      { name: 'context budgets', category: 'context', status: 'skipped', detail: 'a config or participant file is broken (see above)' },
    ];
  }
  let legion: Legion;
  try {
    legion = await openLegion({ root, env });
  } catch (error) {
    return [
      {
        name: 'context budgets',
        category: 'context',
        status: 'skipped',
        detail: `the workspace did not open: ${error instanceof Error ? error.message : String(error)}`,
      },
    ];
  }
  try {
    const checks: DoctorCheck[] = [];
    for (const agent of agents) {
      // A server that failed or hung above would hold the count up as long again: its tools are left out, saying so.
      const report = await legion.contextReport(agent.id, { mcp: countMcp, endpoint: false });
      const { settings } = report;
      const share = `${((report.tools.tokens / settings.window) * 100).toFixed(1)}%`;
      checks.push({
        name: `context ${agent.id}: ${report.model}`,
        category: 'context',
        status: 'passed',
        detail: `tool definitions ${report.tools.tokens} tokens (${report.tools.count} tools, ${share} of the ${settings.window}-token window${report.windowSource === 'default' ? ', a default: the model is unknown' : report.windowSource === 'catalogue' ? ', from the bundled catalogue' : ''}), system prompt ${report.system}; profile ${settings.profile}, compaction at ${settings.summarizeAtTokens}${countMcp || Object.keys(roster.config.mcpServers).length === 0 ? '' : '; MCP tools not counted (a server failed above)'}`,
        ...(report.warnings.length > 0 ? { warning: report.warnings.join(' ') } : {}),
      });
    }
    return checks;
  } finally {
    await legion.close();
  }
}

/** What the server's tool schemas cost each request, and what `lazy` saves. */
export function schemaCost(probe: { schemaTokens: number; listedTokens: number }, server: McpServerConfig): string {
  const setting =
    server.lazy === undefined ? 'lazy for agents with toolSchemas "compact"' : server.lazy ? 'lazy' : 'lazy: false, always sent';
  return `schemas ${groupedNumber(probe.schemaTokens)} tokens per request, ${groupedNumber(probe.listedTokens)} listed lazily (saves ${groupedNumber(probe.schemaTokens - probe.listedTokens)}; now ${setting})`;
}

/** A ConfigError as the report's error and fix. */
function explain(error: ConfigError): { error: string; fix: string } {
  const [problem, fix] = error.message.split('. Fix: ');
  return { error: problem ?? error.message, fix: fix ?? error.fix };
}

function display(roster: Roster, file: string): string {
  return file.startsWith(`${roster.root}/`) ? file.slice(roster.root.length + 1) : file;
}
