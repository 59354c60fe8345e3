import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { AgentParticipant, ModelConfig, WorkspaceLimits } from '../collective/participant.js';
import { readJsonFile } from '../../store/index.js';
import { rejectWorkspaceSecrets } from './config-secrets.js';
import { ConfigLayerSchema, DEFAULT_CONFIG, type ConfigLayer, type ResolvedConfig } from './config-schema.js';

export interface LoadedConfig {
  config: ResolvedConfig;
  /** Files that contributed, lowest precedence first. */
  sources: string[];
  /** `storage.url` is the workspace file's (which a cloned repository may have written), not the user's global config's. */
  storageUrlFromWorkspaceFile: boolean;
}

/**
 * `$XDG_CONFIG_HOME/legion/config.json`, else `~/.config/legion/config.json`.
 * As the XDG spec says, a relative `XDG_CONFIG_HOME` is ignored.
 */
export function globalConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const home = env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir();
  const base = xdg && isAbsolute(xdg) ? xdg : join(home, '.config');
  return join(base, 'legion', 'config.json');
}

/** Built-in defaults → global config → workspace config. Participant overrides apply per agent. */
export function loadConfig(options: { workspaceConfigFile?: string; globalConfigFile?: string; env?: NodeJS.ProcessEnv }): LoadedConfig {
  const layers: ConfigLayer[] = [];
  const sources: string[] = [];
  const globalFile = options.globalConfigFile ?? globalConfigPath(options.env);
  if (existsSync(globalFile)) {
    layers.push(readJsonFile(globalFile, ConfigLayerSchema, { what: 'global Legion config' }));
    sources.push(globalFile);
  }
  if (options.workspaceConfigFile && existsSync(options.workspaceConfigFile)) {
    const layer = readJsonFile(options.workspaceConfigFile, ConfigLayerSchema, { what: 'workspace config' });
    rejectWorkspaceSecrets(layer, options.workspaceConfigFile, globalFile);
    layers.push(layer);
    sources.push(options.workspaceConfigFile);
  }
  const workspaceLayer = options.workspaceConfigFile && sources.includes(options.workspaceConfigFile) ? layers.at(-1) : undefined;
  return { config: mergeConfig(DEFAULT_CONFIG, layers), sources, storageUrlFromWorkspaceFile: workspaceLayer?.storage?.url !== undefined };
}

export function mergeConfig(base: ResolvedConfig, layers: readonly ConfigLayer[]): ResolvedConfig {
  let config: ResolvedConfig = base;
  for (const layer of layers) {
    const providers = { ...config.providers };
    for (const [name, settings] of Object.entries(layer.providers ?? {})) providers[name] = { ...providers[name], ...settings };
    config = {
      entryAgent: layer.entryAgent ?? config.entryAgent,
      defaultModel: layer.defaultModel ?? config.defaultModel,
      limits: { ...config.limits, ...layer.limits },
      providers,
      storage: { ...config.storage, ...layer.storage },
      pricing: { ...config.pricing, ...layer.pricing },
      // Whole entries: a workspace's "github" server replaces the global one rather than mixing their commands and URLs.
      mcpServers: { ...config.mcpServers, ...layer.mcpServers },
      policies: mergePolicies(config.policies, layer.policies),
      approval: { ...config.approval, ...layer.approval },
      shell: { passEnv: [...new Set([...config.shell.passEnv, ...(layer.shell?.passEnv ?? [])])] },
      sandbox: layer.sandbox ?? config.sandbox,
      sandboxNetwork: layer.sandboxNetwork ?? config.sandboxNetwork,
      context: { ...config.context, ...layer.context },
      models: { ...config.models, ...layer.models },
      mcpServe: {
        // Left out rather than undefined when no layer sets it: `legion config show` lists what is set.
        ...((layer.mcpServe?.expose ?? config.mcpServe.expose) !== undefined
          ? { expose: layer.mcpServe?.expose ?? config.mcpServe.expose }
          : {}),
        caller: { ...config.mcpServe.caller, ...layer.mcpServe?.caller },
        questionWaitSeconds: layer.mcpServe?.questionWaitSeconds ?? config.mcpServe.questionWaitSeconds,
        sessionIdleSeconds: layer.mcpServe?.sessionIdleSeconds ?? config.mcpServe.sessionIdleSeconds,
        maxSessions: layer.mcpServe?.maxSessions ?? config.mcpServe.maxSessions,
      },
      telemetry: { ...config.telemetry, ...layer.telemetry },
      remoteAgents: { ...config.remoteAgents, ...layer.remoteAgents },
    };
  }
  return config;
}

/** The last layer: an agent's own settings over the resolved config. */
export function settingsForAgent(config: ResolvedConfig, agent: AgentParticipant): { model: ModelConfig; limits: WorkspaceLimits } {
  // Object.assign, not spreads: called on every step of a turn, and spread-built objects outlive young GCs (bench/memory-runs.mjs).
  const limits = Object.assign({}, config.limits, agent.limits);
  // A session budget is the workspace's: an agent's own limits (which a model may write with create_agent) only lower it.
  const own = agent.limits;
  if (own?.maxSessionCostUsd !== undefined && config.limits.maxSessionCostUsd !== undefined)
    limits.maxSessionCostUsd = Math.min(own.maxSessionCostUsd, config.limits.maxSessionCostUsd);
  if (own?.maxSessionTokens !== undefined && config.limits.maxSessionTokens !== undefined)
    limits.maxSessionTokens = Math.min(own.maxSessionTokens, config.limits.maxSessionTokens);
  return { model: agent.model ?? config.defaultModel, limits };
}

/** A later layer may add or change policies, but never turn an earlier `deny` into something wider. */
function mergePolicies(base: ResolvedConfig['policies'], layer: ConfigLayer['policies']): ResolvedConfig['policies'] {
  const merged = { ...base };
  for (const [pattern, policy] of Object.entries(layer ?? {})) if (merged[pattern] !== 'deny') merged[pattern] = policy;
  return merged;
}
