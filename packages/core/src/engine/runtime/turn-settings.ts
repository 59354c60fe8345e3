import type { ContextSettings, AgentParticipant, ModelConfig, WorkspaceLimits, ResolvedConfig } from '../../team/index.js';
import { settingsForAgent } from '../../team/index.js';
import { contextSettingsFor, modelWindowFor } from '../../model/index.js';
import type { ToolOffer } from './tool-offer.js';

/**
 * What one agent runs a turn with, resolved once when the turn starts and handed to every
 * stage of the loop: the config and the agent's own settings do not change within a turn,
 * and deriving them again at each use cost a merge of limits and a model-table lookup each time.
 */
export interface TurnSettings {
  readonly agent: AgentParticipant;
  /** The agent's model, else the workspace's default. */
  readonly model: ModelConfig;
  /** The workspace's limits, lowered by the agent's own. */
  readonly limits: WorkspaceLimits;
  /** The agent's context profile, window, budget and thresholds. */
  readonly context: ContextSettings;
  /**
   * The window is known (the model table, the config, the agent's `context.window`), not
   * the guess for an unknown model: only then does the context stage act before sending.
   */
  readonly windowKnown: boolean;
  /** A session budget is set (`maxSessionCostUsd`, `maxSessionTokens`): only then is the usage ledger read before each call. */
  readonly budgeted: boolean;
  /** How the agent's tools reach its model this turn, and which of them it may call. */
  readonly offer: ToolOffer;
}

/** Resolves an agent's settings for one turn; `planOffer` makes its tool offer under the resolved `toolSchemas`. */
export function resolveTurnSettings(
  config: ResolvedConfig,
  agent: AgentParticipant,
  planOffer: (toolSchemas: ContextSettings['toolSchemas']) => ToolOffer,
): TurnSettings {
  const { model, limits } = settingsForAgent(config, agent);
  const context = contextSettingsFor(config, agent);
  return {
    agent,
    model,
    limits,
    context,
    windowKnown:
      (agent.context?.window ?? config.context.window) !== undefined ||
      modelWindowFor(model, config.models, config.providers).source !== 'default',
    budgeted: limits.maxSessionCostUsd !== undefined || limits.maxSessionTokens !== undefined,
    offer: planOffer(context.toolSchemas),
  };
}
