import type { AgentParticipant, ContextOverrides, ContextSettings, ResolvedConfig } from '../../team/index.js';
import { settingsForAgent, isLocal } from '../../team/index.js';
import { modelWindowFor } from './model-table.js';

/** The window guessed for a hosted model nobody knows (a local one gets `UNKNOWN_MODEL_WINDOW`). */
export const UNKNOWN_HOSTED_MODEL_WINDOW = { window: 32_768, outputReserve: 4_096 } as const;

/** At or below this window, `auto` means `small`. */
export const SMALL_WINDOW_TOKENS = 16_384;

/** Colony's on-device profile (`../shared/seeds/002_*`), for ~4k-token models. */
function smallProfile(window: number, outputReserve: number): ContextSettings {
  return {
    profile: 'small',
    window,
    outputReserve,
    evictAboveTokens: 700,
    pruneAtTokens: Math.min(2_600, window - outputReserve),
    summarizeAtTokens: Math.min(3_200, window - outputReserve),
    protectRecentTokens: 1_000,
    keepRecentMessages: 2,
    scratchbook: true,
    artifactMaxBytes: 10 * 1024 * 1024,
    toolSchemas: 'compact',
  };
}

/** Generous: triggers relative to the model's window. */
function cloudProfile(window: number, outputReserve: number): ContextSettings {
  const usable = window - outputReserve;
  return {
    profile: 'cloud',
    window,
    outputReserve,
    evictAboveTokens: 20_000,
    pruneAtTokens: Math.floor(usable * 0.7),
    summarizeAtTokens: usable - 13_000 > usable / 2 ? usable - 13_000 : Math.floor(usable * 0.85),
    protectRecentTokens: Math.min(40_000, Math.floor(usable * 0.25)),
    keepRecentMessages: 4,
    scratchbook: false,
    artifactMaxBytes: 10 * 1024 * 1024,
    toolSchemas: 'full',
  };
}

/**
 * The context settings one agent runs with: its profile's defaults for its
 * model's window, then the config's `context`, then the agent's own, field by field.
 */
export function contextSettingsFor(config: ResolvedConfig, agent: AgentParticipant): ContextSettings {
  const { model } = settingsForAgent(config, agent);
  // Object.assign, not spreads: the run path calls this per step, and spread-built objects outlive young GCs (bench/memory-runs.mjs).
  const overrides: ContextOverrides = Object.assign({}, config.context, agent.context);
  const known = modelWindowFor(model, config.models);
  // Nobody knows the model, and it is served from elsewhere: a hosted model takes far more than a local
  // server's 8k, and the small profile would starve it (compact tools, 700-token eviction). Compaction before
  // sending stays off for a guessed window anyway; a too-long error names the real one.
  const hosted =
    known.source === 'default' &&
    !isLocal({ provider: model.provider, baseURL: model.baseURL ?? config.providers[model.provider]?.baseURL });
  const fromTable = hosted ? Object.assign({}, known, UNKNOWN_HOSTED_MODEL_WINDOW) : known;
  const window = overrides.window ?? fromTable.window;
  const outputReserve = overrides.outputReserve ?? fromTable.outputReserve ?? Math.min(16_000, Math.floor(window / 4));
  const name = overrides.profile ?? 'auto';
  const small = name === 'small' || (name === 'auto' && window <= SMALL_WINDOW_TOKENS);
  const base = small ? smallProfile(window, outputReserve) : cloudProfile(window, outputReserve);
  return Object.assign({}, base, overrides, { profile: base.profile, window, outputReserve });
}
