import type { AgentParticipant, ContextOverrides, ContextSettings, ResolvedConfig } from '../../team/index.js';
import { settingsForAgent, isLocal } from '../../team/index.js';
import { modelWindowFor } from './model-table.js';

/** The window guessed for a hosted model nobody knows (a local one gets `UNKNOWN_MODEL_WINDOW`). */
export const UNKNOWN_HOSTED_MODEL_WINDOW = { window: 32_768, outputReserve: 4_096 } as const;

/** At or below this window, `auto` means `small`. */
export const SMALL_WINDOW_TOKENS = 16_384;

/**
 * Colony's on-device profile (`../shared/seeds/002_*`), for ~4k-token models: at 4,096 tokens it evicts
 * tool results over ~700 tokens, prunes at ~2,600 and summarizes at ~3,200. Each threshold is that
 * fraction of the window, so the profile holds at 2k and 8k as at 4k, and never past what the
 * request may take (window − reserve): a summary starts before the hard cap has to cut.
 */
function smallProfile(window: number, outputReserve: number): ContextSettings {
  const usable = window - outputReserve;
  return {
    profile: 'small',
    window,
    outputReserve,
    evictAboveTokens: Math.max(1, Math.round(window * (700 / 4_096))),
    pruneAtTokens: Math.max(1, Math.min(Math.round(window * (2_600 / 4_096)), Math.floor(usable * 0.75))),
    summarizeAtTokens: Math.max(1, Math.min(Math.round(window * (3_200 / 4_096)), Math.floor(usable * 0.9))),
    protectRecentTokens: Math.min(Math.round(window * (1_000 / 4_096)), Math.floor(usable / 3)),
    keepRecentMessages: 2,
    scratchbook: true,
    artifactMaxBytes: 10 * 1024 * 1024,
    toolSchemas: 'compact',
  };
}

/**
 * The reply's share of a window the model's entry did not size: an eighth of a small window (512 of
 * 4,096, which leaves the small profile its Colony thresholds), a quarter of a larger one, at most
 * 16k (32k in a window of a million tokens or more: Claude's 1M models write up to 128k) and at most
 * what the model is known to need. The model's own reserve is for its own window
 * (GPT-5's 128k is exactly what its 400k window does not accept as input); kept whole in a 4k
 * window it left nothing for the request ("4096 kept for the reply (0 for the request)").
 */
export function outputReserveFor(window: number, known: { window: number; outputReserve?: number | undefined }): number {
  const scaled = Math.max(1, Math.min(window >= 1_000_000 ? 32_000 : 16_000, Math.floor(window / (window <= SMALL_WINDOW_TOKENS ? 8 : 4))));
  if (known.outputReserve === undefined) return scaled;
  if (window >= known.window) return known.outputReserve;
  return Math.min(known.outputReserve, scaled);
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
  const known = modelWindowFor(model, config.models, config.providers);
  // Nobody knows the model, and it is served from elsewhere: a hosted model takes far more than a local
  // server's 8k, and the small profile would starve it (compact tools, 700-token eviction). Compaction before
  // sending stays off for a guessed window anyway; a too-long error names the real one.
  const hosted =
    known.source === 'default' &&
    !isLocal({ provider: model.provider, baseURL: model.baseURL ?? config.providers[model.provider]?.baseURL });
  const fromTable = hosted ? Object.assign({}, known, UNKNOWN_HOSTED_MODEL_WINDOW) : known;
  const window = overrides.window ?? fromTable.window;
  const outputReserve = overrides.outputReserve ?? outputReserveFor(window, fromTable);
  const name = overrides.profile ?? 'auto';
  const small = name === 'small' || (name === 'auto' && window <= SMALL_WINDOW_TOKENS);
  const base = small ? smallProfile(window, outputReserve) : cloudProfile(window, outputReserve);
  return Object.assign({}, base, overrides, { profile: base.profile, window, outputReserve });
}

/**
 * How an agent's tool schemas are sent, and why (`legion tools list` says it): the config's
 * `context.toolSchemas` (the agent's or the workspace's), else its profile's default: `compact`
 * for the small profile (a window of at most `SMALL_WINDOW_TOKENS`), `full` for the cloud one.
 */
export function toolSchemasOf(
  config: ResolvedConfig,
  agent: AgentParticipant,
): { toolSchemas: ContextSettings['toolSchemas']; toolSchemasFrom: 'config' | 'small' | 'cloud'; window: number } {
  const settings = contextSettingsFor(config, agent);
  const configured = agent.context?.toolSchemas ?? config.context?.toolSchemas;
  return {
    toolSchemas: settings.toolSchemas,
    toolSchemasFrom: configured !== undefined ? 'config' : settings.profile === 'small' ? 'small' : 'cloud',
    window: settings.window,
  };
}
