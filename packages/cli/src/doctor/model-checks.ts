// `legion doctor`'s checks of models: each agent's provider and key, endpoints, remote agents, prices, budgets.
import { LEGION_DIR } from '@legion-collective/core';
import {
  checkModelAccess,
  globalConfigPath,
  prefixPricingKeys,
  PriceBook,
  probeEndpoint,
  describeRemoteAgent,
  remoteAccess,
  type ModelAccess,
} from '@legion-collective/core/management';
import { type Roster } from '../roster.js';
import type { DoctorCheck } from './doctor-report.js';

export function providerChecks(roster: Roster, env: NodeJS.ProcessEnv, configBroken: boolean, probing: boolean): DoctorCheck[] {
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
export async function remoteAgentChecks(
  roster: Roster,
  env: NodeJS.ProcessEnv,
  probe: { timeoutMs: number } | undefined,
): Promise<DoctorCheck[]> {
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
export function pricingChecks(roster: Roster): DoctorCheck[] {
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
export async function budgetChecks(roster: Roster, env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
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
