import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findWorkspaceRoot, LEGION_DIR } from '@legion-collective/core';
import { globalConfigPath, probeMcpServer } from '@legion-collective/core/management';
import { readRoster } from '../roster.js';
import type { DoctorCheck } from './doctor-report.js';
import { containmentCheck, nodeCheck, sandboxCheck } from './machine-checks.js';
import { budgetChecks, endpointChecks, pricingChecks, providerChecks, remoteAgentChecks } from './model-checks.js';
import {
  approvalRuleChecks,
  configChecks,
  contextChecks,
  participantChecks,
  schemaCost,
  templateChecks,
  workspaceFileChecks,
  workspaceToolChecks,
} from './workspace-checks.js';

export interface DoctorOptions {
  /** The workspace named with --workspace; else the nearest one above the current directory. */
  workspace?: string | undefined;
  env: NodeJS.ProcessEnv;
  /** For each MCP server to start and list its tools. */
  mcpTimeoutMs: number;
  /** Contact each agent's endpoint (`--probe`): list its models, read the window it reports. Off: nothing is sent anywhere. */
  probe?: { timeoutMs: number } | undefined;
  /** Each check as it completes, for live output. */
  onCheck(check: DoctorCheck): void;
}

/**
 * Everything `legion doctor` verifies, without spending a token: Node, the
 * workspace files, each config layer, each participant file, each agent's
 * provider and key, each MCP server (started, its tools listed, stopped) and
 * the workspace tool files. A check that cannot run because an earlier one
 * failed is skipped with the reason.
 */
export async function runDoctorChecks(options: DoctorOptions): Promise<{ root: string | null; checks: DoctorCheck[] }> {
  const checks: DoctorCheck[] = [];
  const add = (check: DoctorCheck): void => {
    checks.push(check);
    options.onCheck(check);
  };
  add(nodeCheck());
  add(containmentCheck());
  const root = options.workspace
    ? existsSync(join(resolve(options.workspace), LEGION_DIR))
      ? resolve(options.workspace)
      : null
    : findWorkspaceRoot(process.cwd());
  if (!root) {
    const where = options.workspace ? resolve(options.workspace) : process.cwd();
    add({
      name: 'workspace',
      category: 'workspace',
      status: 'failed',
      error: `no ${LEGION_DIR}/ workspace in ${where}${options.workspace ? '' : ' or above it'}`,
      fix: `run "legion init" in your project${options.workspace ? ` (or "legion init ${options.workspace}")` : ''}`,
    });
    const global = globalConfigPath(options.env);
    add({ name: `global config ${global}`, category: 'config', status: 'skipped', detail: 'no workspace to check it with', file: global });
    return { root: null, checks };
  }
  for (const check of workspaceFileChecks(root)) add(check);
  const roster = readRoster(root, options.env);
  for (const check of configChecks(roster, options.env)) add(check);
  add(sandboxCheck(roster.config.sandbox, roster.config.sandboxNetwork));
  for (const check of participantChecks(roster)) add(check);
  const configBroken = roster.layers.some((layer) => layer.error);
  for (const check of providerChecks(roster, options.env, configBroken, options.probe !== undefined)) add(check);
  if (options.probe && !configBroken) for (const check of await endpointChecks(roster, options.env, options.probe.timeoutMs)) add(check);
  for (const check of await remoteAgentChecks(roster, options.env, options.probe)) add(check);
  for (const check of pricingChecks(roster)) add(check);
  if (!configBroken) for (const check of await budgetChecks(roster, options.env)) add(check);
  const servers = Object.entries(roster.config.mcpServers);
  if (configBroken && servers.length === 0)
    add({
      name: 'MCP servers',
      category: 'mcp',
      status: 'skipped',
      detail: 'a config file is broken (see above), so the configured servers are not known',
    });
  let mcpFailed = false;
  await Promise.all(
    servers.map(async ([name, server]) => {
      const probe = await probeMcpServer(name, server, { workspaceRoot: root, env: options.env, timeoutMs: options.mcpTimeoutMs });
      if (!probe.ok) mcpFailed = true;
      add(
        probe.ok
          ? {
              name: `MCP server ${name}`,
              category: 'mcp',
              status: 'passed',
              detail: `started${probe.revision === undefined ? '' : ` (MCP ${probe.revision})`} and listed ${probe.tools.length} tool${probe.tools.length === 1 ? '' : 's'}: ${probe.tools.join(', ')}; ${schemaCost(probe, server)}`,
              ...(probe.warnings.length > 0 ? { warning: probe.warnings.join('; ') } : {}),
              durationMs: probe.durationMs,
            }
          : {
              name: `MCP server ${name}`,
              category: 'mcp',
              status: 'failed',
              error: probe.error,
              fix: `check mcpServers.${name} (${server.command !== undefined ? `run "${[server.command, ...(server.args ?? [])].join(' ')}" yourself to see it fail` : `is ${server.url} up?`}); its tools are missing until it starts`,
              durationMs: probe.durationMs,
            },
      );
    }),
  );
  for (const check of templateChecks(root)) add(check);
  for (const check of approvalRuleChecks(root)) add(check);
  for (const check of workspaceToolChecks(root, options.env)) add(check);
  for (const check of await contextChecks(root, roster, options.env, !mcpFailed)) add(check);
  return { root, checks };
}
