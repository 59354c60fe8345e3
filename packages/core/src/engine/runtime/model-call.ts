import {
  ContextOverflowError,
  generate,
  type CallProgress,
  type LLMProvider,
  type ModelRequest,
  type ModelResponse,
  type ProviderRetry,
  isContextTooLongError,
  windowNamedBy,
  reusesCallSignals,
} from '../../model/index.js';
import { errorMessage, LegionError } from '../../kernel/index.js';
import type { RuntimeOutcome, TurnContext } from '../../session/index.js';
import type { ChatTrace } from '../../kernel/index.js';
import type { ContextStage } from './context-stage.js';
import type { CallSignals } from './linked-signal.js';
import { answeredAt, prefetchPriceWhileAnswering, resetProgress } from './loop-fast-paths.js';
import { buildModelRequest, type ModelRequestSource } from './model-request.js';
import type { TurnSettings } from './turn-settings.js';
import type { UsageRecorder } from './usage-recorder.js';

/** What a model call of the turn needs; made once per turn, used by each of its steps. */
export interface ModelCallInput {
  turn: TurnContext;
  settings: TurnSettings;
  provider: LLMProvider;
  /** What each step's request is built from (`turn-request.ts`). */
  source: ModelRequestSource;
  /** The context stage of the requests: on a too-long error it learns the real window and compacts once. */
  stage: ContextStage;
  calls: CallSignals;
  /** What arrived of the call, should it end before the provider reports its usage (reset per call). */
  progress: CallProgress;
  onTextDelta: (text: string) => void;
  usage: UsageRecorder;
}

/** A call the model answered: its response, and the trace span that ends once the usage's cost is known. */
export interface AnsweredCall {
  status: 'answered';
  response: ModelResponse;
  chat: ChatTrace | undefined;
  /** When the model's part ended (0 when not traced). */
  answeredAt: number;
}

export type ModelCall = AnsweredCall | { status: 'failed'; outcome: RuntimeOutcome };

/**
 * One model call of the loop: the request built anew from the history (the context stages
 * run there), sent and streamed. A too-long error gets one compaction and one retry, never
 * a loop. A call that fails or is cancelled appends nothing (the log never holds half a
 * reply); what it cost is counted, estimated if the provider never said.
 */
export async function callModel(input: ModelCallInput): Promise<ModelCall> {
  const { turn, settings, provider, stage, progress } = input;
  const signal = input.calls.next(reusesCallSignals(provider));
  let compactedOnOverflow = false;
  let chat: ChatTrace | undefined;
  let request: ModelRequest | undefined;
  resetProgress(progress);
  try {
    for (;;) {
      const built = await buildModelRequest(input.source);
      request = built;
      chat = turn.trace?.chat({
        provider: provider.name,
        model: provider.model,
        maxTokens: built.maxTokens,
        temperature: built.temperature,
        system: built.system,
        messages: built.messages,
      });
      try {
        const options = {
          signal,
          progress,
          onTextDelta: input.onTextDelta,
          onRetry: (retry: ProviderRetry) =>
            turn.events.emit('provider:retry', {
              ...turn.conversation.ref,
              participantId: settings.agent.id,
              provider: provider.name,
              model: provider.model,
              ...retry,
            }),
        };
        const answering = chat ? chat.run(() => generate(provider, built, options)) : generate(provider, built, options);
        prefetchPriceWhileAnswering(input.usage, provider);
        const response = await answering;
        // The model's part ends now; the span ends once the usage's cost is known.
        return { status: 'answered', response, chat, answeredAt: answeredAt(chat !== undefined) };
      } catch (error) {
        chat?.failed(turn.signal.aborted ? 'cancelled' : error instanceof LegionError ? error.code : 'model_failed', errorMessage(error));
        if (compactedOnOverflow || !isContextTooLongError(error) || turn.signal.aborted) throw error;
        compactedOnOverflow = true;
        // The window the provider named holds for the rest of the turn: the summarizer's request and the retry fit it.
        stage.limitWindow(windowNamedBy(error));
        if ((await stage.compact('overflow')).status !== 'compacted') throw error;
      }
    }
  } catch (error) {
    if (progress.received && request)
      await input.usage.recordUnreported(turn, settings.agent.id, settings.context, provider, request, progress);
    return { status: 'failed', outcome: failedCallOutcome(turn, settings.agent.id, error, compactedOnOverflow) };
  } finally {
    input.calls.done();
  }
}

function failedCallOutcome(turn: TurnContext, agentId: string, error: unknown, compactedOnOverflow: boolean): RuntimeOutcome {
  if (turn.signal.aborted) return { status: 'error', code: 'cancelled', error: `${agentId} was cancelled while its model was answering.` };
  if (error instanceof ContextOverflowError) return { status: 'error', code: error.code, error: error.message };
  const retried = compactedOnOverflow && isContextTooLongError(error) ? ' (after one compaction and one retry)' : '';
  return {
    status: 'error',
    code: error instanceof LegionError ? error.code : 'model_failed',
    error: `${agentId}'s model call failed${retried}: ${errorMessage(error)}`,
  };
}
