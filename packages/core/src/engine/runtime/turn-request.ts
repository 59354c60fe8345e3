import { ARTIFACT_READ_TOOL_NAME } from '../../model/index.js';
import type { LLMProvider, ProviderFactory } from '../../model/index.js';
import type { TurnContext } from '../../session/index.js';
import { ContextStage } from './context-stage.js';
import { contextUsageReporter, type LoadedToolsOfStep } from './loop-fast-paths.js';
import type { ModelRequestSource } from './model-request.js';
import type { TurnSettings } from './turn-settings.js';
import type { UsageRecorder } from './usage-recorder.js';

/**
 * The context stages of this agent's requests in this turn (compaction, the carried-over
 * state, the cap at the window); the summarizer is the configured one, else the agent's model.
 */
export function contextStageFor(
  turn: Omit<TurnContext, 'message'>,
  settings: TurnSettings,
  provider: LLMProvider,
  providers: ProviderFactory,
  usage: UsageRecorder,
): ContextStage {
  const { context } = settings;
  return new ContextStage({
    turn,
    agent: settings.agent,
    settings: context,
    windowKnown: settings.windowKnown,
    summarizer: () => (context.summarizer ? providers.forModel(context.summarizer) : provider),
    onUsage: (used, summarizer) => usage.record(turn, settings.agent.id, summarizer, used).then(() => undefined),
  });
}

/**
 * What every step's model request is built from (`buildModelRequest`): fixed for the turn — the
 * system prompt, the tool offer, the model's settings, the context stages — while the history is
 * read again at each step. The loop's `transformContext`: the one place that decides what the model sees.
 */
export function turnRequestSource(
  turn: TurnContext,
  settings: TurnSettings,
  system: string,
  stage: ContextStage,
  loaded: LoadedToolsOfStep,
): ModelRequestSource {
  const { agent, offer, model, context } = settings;
  // Every field in one literal: storing a field into the object after it was built (a property
  // added later) made TurboFan's concurrent compile jobs use ~4 MB more malloc'd zone memory over
  // 2,000 runs, which glibc keeps in its per-thread arenas (bench/memory-runs.mjs, RSS growth).
  return {
    compaction: stage,
    system,
    tools: offer.initial(),
    ...(offer.onDemand
      ? {
          offerTools: async (messages) => offer.definitions(await loaded.forRequest(), messages),
        }
      : {}),
    maxTokens: model.maxTokens,
    temperature: model.temperature,
    history: () => turn.conversation.history(),
    pruning: {
      pruneAtTokens: context.pruneAtTokens,
      protectRecentTokens: context.protectRecentTokens,
      artifacts: turn.session.artifacts,
      canReadArtifacts: offer.callable.has(ARTIFACT_READ_TOOL_NAME),
    },
    context,
    sentFor: turn.conversation,
    measured: contextUsageReporter(turn, agent.id),
  };
}
