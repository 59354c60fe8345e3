import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ConfigError,
  findWorkspaceRoot,
  Legion,
  LEGION_DIR,
  type McpServerConfig,
  type SandboxNetwork,
  groupedNumber,
} from '@legion-collective/core';
import {
  agentTemplateNames,
  checkModelAccess,
  containment,
  CONTAINMENT_VARIABLE,
  describeConfinement,
  sandboxSupport,
  globalConfigPath,
  inspectApprovalRuleFiles,
  inspectWorkspaceTools,
  loadAgentTemplate,
  prefixPricingKeys,
  PriceBook,
  probeEndpoint,
  probeMcpServer,
  describeRemoteAgent,
  remoteAccess,
  type ModelAccess,
} from '@legion-collective/core/management';
import { readRoster, type Roster } from '../roster.js';
import type { DoctorCheck } from './doctor-report.js';
import { openLegion } from '../workspace.js';

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

const MINIMUM_NODE: readonly [number, number] = [20, 19];

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

/** What the server's tool schemas cost each request, and what `lazy` saves. */
function schemaCost(probe: { schemaTokens: number; listedTokens: number }, server: McpServerConfig): string {
  const setting =
    server.lazy === undefined ? 'lazy for agents with toolSchemas "compact"' : server.lazy ? 'lazy' : 'lazy: false, always sent';
  return `schemas ${groupedNumber(probe.schemaTokens)} tokens per request, ${groupedNumber(probe.listedTokens)} listed lazily (saves ${groupedNumber(probe.schemaTokens - probe.listedTokens)}; now ${setting})`;
}

function nodeCheck(): DoctorCheck {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok = major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]);
  const needed = `${MINIMUM_NODE[0]}.${MINIMUM_NODE[1]}`;
  return ok
    ? { name: 'Node.js', category: 'node', status: 'passed', detail: `${process.versions.node} (${needed} or later needed)` }
    : {
        name: 'Node.js',
        category: 'node',
        status: 'failed',
        error: `Node.js ${process.versions.node} is too old`,
        fix: `install Node.js ${needed} or later`,
      };
}

/** How the commands agents run are kept from outliving them and Legion (core's `containment()`). */
function containmentCheck(): DoctorCheck {
  const used = containment();
  const check: DoctorCheck = { name: 'command containment', category: 'tools', status: 'passed', detail: `${used.kind}: ${used.reason}` };
  if (used.kind === 'pid-namespace') return check;
  const forced = used.reason.startsWith(CONTAINMENT_VARIABLE);
  const install = forced
    ? `; unset ${CONTAINMENT_VARIABLE} for a PID namespace per command`
    : process.platform === 'linux'
      ? '; install bubblewrap (bwrap) with user namespaces enabled for a PID namespace per command'
      : '';
  return { ...check, warning: `a process a command starts can escape it and outlive Legion${install}` };
}

/**
 * Whether the commands agents write run in the OS sandbox here, as the config asks: bubblewrap is
 * tried for real (`true` run inside the sandbox's profile), so a machine whose user namespaces are
 * off says so. `required` where it cannot work fails: no command would run.
 */
function sandboxCheck(mode: 'on' | 'off' | 'required', network: SandboxNetwork): DoctorCheck {
  const name = 'command sandbox';
  if (mode === 'off')
    return {
      name,
      category: 'tools',
      status: 'passed',
      detail: '"sandbox" is "off" in the config: commands run unsandboxed',
      warning:
        'a command an agent writes may write anywhere you may, read your keys and reach the network; set "sandbox": "on" to confine them',
    };
  const support = sandboxSupport();
  if (support.works) return { name, category: 'tools', status: 'passed', detail: `bubblewrap, "${mode}": ${describeConfinement(network)}` };
  if (mode === 'required')
    return {
      name,
      category: 'tools',
      status: 'failed',
      error: `"sandbox" is "required", and ${support.reason}: no command an agent writes will run`,
      fix: support.fix,
    };
  return {
    name,
    category: 'tools',
    status: 'passed',
    detail: `"sandbox" is "on", but ${support.reason}: commands run unsandboxed`,
    warning: `to sandbox them: ${support.fix}`,
  };
}

function workspaceFileChecks(root: string): DoctorCheck[] {
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

function configChecks(roster: Roster, env: NodeJS.ProcessEnv): DoctorCheck[] {
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

function participantChecks(roster: Roster): DoctorCheck[] {
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

function providerChecks(roster: Roster, env: NodeJS.ProcessEnv, configBroken: boolean, probing: boolean): DoctorCheck[] {
  return roster.participants
    .filter((participant) => participant.type === 'agent' && participant.status === 'active')
    .map((agent): DoctorCheck => {
      const model = (agent.type === 'agent' ? agent.model : undefined) ?? roster.config.defaultModel;
      const name = `agent ${agent.id}: ${model.provider}/${model.model}`;
      if (configBroken)
        return {
          name,
          category: 'providers',
          status: 'skipped',
          detail: 'a config file is broken (see above); its providers and keys are not known',
        };
      const access = checkModelAccess(model, roster.config.providers, env);
      if (!access.ok)
        return {
          name,
          category: 'providers',
          status: 'failed',
          error: access.problem,
          fix: access.fix,
          file: `${LEGION_DIR}/collective/participants/${agent.id}.json`,
        };
      return {
        name,
        category: 'providers',
        status: 'passed',
        // Said, so that "All good" is not read as "the endpoint is up": only --probe contacts it.
        detail: `${describeKey(access, env)}${access.endpoint ? `, endpoint ${access.endpoint}` : ''}; ${probing ? 'endpoint contacted below' : 'endpoint not contacted (use --probe)'}`,
      };
    });
}

/**
 * `--probe`: each distinct endpoint and model the agents use, contacted (its model list, or the
 * model's entry; the window it reports), spending no token. A failure names the endpoint and says
 * what is wrong (unreachable, the key refused, the model unknown) with the fix.
 */
export async function endpointChecks(roster: Roster, env: NodeJS.ProcessEnv, timeoutMs: number, only?: string): Promise<DoctorCheck[]> {
  const byModel = new Map<string, { model: NonNullable<Roster['config']['defaultModel']>; agents: string[] }>();
  for (const agent of roster.participants) {
    if (agent.type !== 'agent' || agent.status !== 'active' || (only !== undefined && agent.id !== only)) continue;
    const model = agent.model ?? roster.config.defaultModel;
    if (!checkModelAccess(model, roster.config.providers, env).ok) continue;
    const key = JSON.stringify([model.provider, model.model, model.baseURL ?? '']);
    const entry = byModel.get(key) ?? { model, agents: [] };
    entry.agents.push(agent.id);
    byModel.set(key, entry);
  }
  return Promise.all(
    [...byModel.values()].map(async ({ model, agents }): Promise<DoctorCheck> => {
      const started = Date.now();
      const probe = await probeEndpoint(model, roster.config.providers, env, { timeoutMs });
      const name = `endpoint ${model.provider}/${model.model}${probe.endpoint ? ` at ${probe.endpoint}` : ''} (${agents.join(', ')})`;
      const durationMs = Date.now() - started;
      if (probe.status !== 'ok')
        return { name, category: 'providers', status: 'failed', error: `${probe.status}: ${probe.problem}`, fix: probe.fix, durationMs };
      const listed =
        probe.models === undefined
          ? 'knows the model'
          : `lists ${probe.models.length} model${probe.models.length === 1 ? '' : 's'}, this one among them`;
      const window = probe.window === undefined ? 'reports no window' : `reports a ${probe.window}-token window (${probe.windowFrom})`;
      return { name, category: 'providers', status: 'passed', detail: `reachable; ${listed}; ${window}`, durationMs };
    }),
  );
}

/**
 * Each active remote (A2A) agent: with `--probe`, its card is read (with the global config's credentials
 * for its origin); without, nothing is sent and the line says so.
 */
async function remoteAgentChecks(roster: Roster, env: NodeJS.ProcessEnv, probe: { timeoutMs: number } | undefined): Promise<DoctorCheck[]> {
  const remotes = roster.participants.filter((participant) => participant.type === 'a2a' && participant.status === 'active');
  return Promise.all(
    remotes.map(async (remote): Promise<DoctorCheck> => {
      const url = remote.type === 'a2a' ? remote.url : '';
      const name = `remote agent ${remote.id} (${url})`;
      if (!probe) return { name, category: 'participants', status: 'skipped', detail: 'its card is read only with --probe' };
      const started = Date.now();
      try {
        const access = { ...remoteAccess(roster.config, env), idleTimeoutMs: probe.timeoutMs };
        const card = await describeRemoteAgent(url, access);
        const skills = card.skills.map((skill) => skill.name).join(', ');
        return {
          name,
          category: 'participants',
          status: 'passed',
          detail: `card of "${card.name}" read${card.streaming ? ', streams' : ''}; ${card.skills.length} skill${card.skills.length === 1 ? '' : 's'}${skills ? `: ${skills}` : ''}`,
          durationMs: Date.now() - started,
        };
      } catch (error) {
        return {
          name,
          category: 'participants',
          status: 'failed',
          error: error instanceof Error ? error.message : String(error),
          fix: `check that ${url} is up and serves the agent's card; credentials for it go under "remoteAgents" in ${globalConfigPath(env)}`,
          durationMs: Date.now() - started,
        };
      }
    }),
  );
}

/**
 * Config prices are matched by exact model id now: a key written for the old
 * prefix matching (`gpt-5` meant to price `gpt-5-mini` too) prices only its own
 * model, and the others' costs would be unknown. Said only where it happens.
 */
function pricingChecks(roster: Roster): DoctorCheck[] {
  const keys = Object.keys(roster.config.pricing);
  if (keys.length === 0) return [];
  const models = roster.participants.flatMap((participant) =>
    participant.type === 'agent' && participant.status === 'active' ? [participant.model ?? roster.config.defaultModel] : [],
  );
  const stale = prefixPricingKeys(roster.config.pricing, models);
  if (stale.length === 0)
    return [
      {
        name: 'pricing',
        category: 'config',
        status: 'passed',
        detail: `${keys.length} model price${keys.length === 1 ? '' : 's'} in the config, matched by exact id (dated aliases included)`,
      },
    ];
  return [
    {
      name: 'pricing',
      category: 'config',
      status: 'failed',
      error: `prices are matched by exact model id now, not by prefix: ${stale.map(({ key, model }) => `pricing["${key}"] no longer prices ${model}`).join('; ')}, whose cost is unknown unless the list has it`,
      fix: `write the key as a family glob to keep pricing the family (${stale.map(({ key }) => `"${key}*"`).join(', ')}), or add an entry for each model id`,
    },
  ];
}

/**
 * A cost budget counts only calls with a known price. With `limits.maxSessionCostUsd` set, the
 * agents whose model has none are named (this loads the price list, as the first priced call would).
 */
async function budgetChecks(roster: Roster, env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  const { maxSessionCostUsd, maxSessionTokens } = roster.config.limits;
  if (maxSessionCostUsd === undefined) return [];
  const book = new PriceBook(() => roster.config.pricing);
  const unpriced: string[] = [];
  for (const agent of roster.participants) {
    if (agent.type !== 'agent' || agent.status !== 'active') continue;
    const model = agent.model ?? roster.config.defaultModel;
    const access = checkModelAccess(model, roster.config.providers, env);
    const quote = await book.quote({ provider: model.provider, model: model.model, baseURL: access.ok ? access.endpoint : model.baseURL });
    if (quote.price === null) unpriced.push(`${agent.id} (${model.provider}/${model.model})`);
  }
  const name = `session budget $${maxSessionCostUsd}`;
  if (unpriced.length === 0)
    return [{ name, category: 'config', status: 'passed', detail: "every agent's model has a price (list, config or local)" }];
  const detail = `no known price for ${unpriced.join(', ')}: their calls add nothing to the cost`;
  if (maxSessionTokens !== undefined)
    return [
      { name, category: 'config', status: 'passed', detail: `${detail}; limits.maxSessionTokens (${maxSessionTokens}) still bounds them` },
    ];
  return [
    {
      name,
      category: 'config',
      status: 'failed',
      error: `${detail}, so limits.maxSessionCostUsd does not bound them`,
      fix: `give those models a "pricing" entry in .legion/config.json, or set limits.maxSessionTokens too`,
    },
  ];
}

function describeKey(access: Extract<ModelAccess, { ok: true }>, env: NodeJS.ProcessEnv): string {
  if (access.key.from === 'none-needed') return 'no key needed';
  if (access.key.from === 'environment') return `key from $${access.key.variable}`;
  return `key from ${access.key.field} in ${globalConfigPath(env)}`;
}

function templateChecks(root: string): DoctorCheck[] {
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
function approvalRuleChecks(root: string): DoctorCheck[] {
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

function workspaceToolChecks(root: string, env: NodeJS.ProcessEnv): DoctorCheck[] {
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
async function contextChecks(root: string, roster: Roster, env: NodeJS.ProcessEnv, countMcp: boolean): Promise<DoctorCheck[]> {
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

/** A ConfigError as the report's error and fix. */
function explain(error: ConfigError): { error: string; fix: string } {
  const [problem, fix] = error.message.split('. Fix: ');
  return { error: problem ?? error.message, fix: fix ?? error.fix };
}

function display(roster: Roster, file: string): string {
  return file.startsWith(`${roster.root}/`) ? file.slice(roster.root.length + 1) : file;
}
