import type { ContextSettings } from '../../team/index.js';
import { measureContext, recordSentRequest, type ContextUsage, pruneToolResults, type PruneOptions } from '../../model/index.js';
import type { Message } from '../../kernel/index.js';
import type { ModelRequest, ToolDefinition } from '../../model/index.js';
import { withEndedTurns } from '../conversation/turn-ending.js';

/** What one turn fixes for all its steps; the history is read again at every step. */
export interface ModelRequestSource {
  system: string;
  tools: readonly ToolDefinition[];
  /** When tools are loaded on demand: the definitions of this step, decided from what the model is sent (replaces `tools`). */
  offerTools?(messages: readonly Message[]): Promise<readonly ToolDefinition[]>;
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  history(): Promise<readonly Message[]>;
  /** Relief step 2, pruning old tool results; absent: the history goes as it is. */
  pruning?: PruneOptions | undefined;
  /** The agent's context budget: with it, each request is recorded as sent, and measured (`measureContext`) when someone `measured` wants it. */
  context?: ContextSettings | undefined;
  /**
   * The conversation context the requests belong to: each request sent is recorded for it
   * (`recordSentRequest`, one small record replaced per step), so that the next measure, the
   * relief stages' and the report's alike, takes the provider's reported usage for what was sent.
   */
  sentFor?: object | undefined;
  /** Told each request's measure (the runtime's `context:usage` event); asked first whether it is wanted. */
  measured?: { wanted(): boolean; report(usage: ContextUsage): void } | undefined;
  /**
   * Relief step 3 and the hard cap (`ContextStage`: compaction, the carried-over state,
   * the cap at the window). Runs last, on the request as the steps before made it; given the
   * steps before as `relieve`, to rebuild a request from the history after compacting it.
   */
  compaction?:
    | { apply(request: ModelRequest, relieve?: (history: readonly Message[]) => Promise<readonly Message[]>): Promise<ModelRequest> }
    | undefined;
}

/**
 * The model request of one step of the agent loop, built anew at every step
 * with arrays of its own: a provider that keeps a request, or changes it, sees
 * and touches neither the conversation's history nor a later step's request.
 * The one place that decides what the model sees, so the context builder
 * (token budget, eviction, compaction) takes over here.
 */
export async function buildModelRequest(source: ModelRequestSource): Promise<ModelRequest> {
  // Relief step 2: past pruneAtTokens, old tool results beyond the protected recent part become stubs naming their artifact (the log keeps them whole).
  const { pruning } = source;
  const relieve = pruning ? (history: readonly Message[]) => pruneToolResults(history, source, pruning) : undefined;
  // Messages a failed turn's provider refused are left out (their place kept): sent again, they would fail again.
  const history = withEndedTurns(await source.history());
  const messages = [...(relieve ? await relieve(history) : history)];
  const request: ModelRequest = {
    system: source.system,
    messages,
    tools: [...(source.offerTools ? await source.offerTools(messages) : source.tools)],
    maxTokens: source.maxTokens,
    temperature: source.temperature,
  };
  // Relief step 3 and the hard cap.
  const sent = source.compaction ? await source.compaction.apply(request, relieve) : request;
  if (source.context) {
    // What is measured and recorded is what goes: the reply to it reports usage for exactly these messages.
    if (source.measured?.wanted())
      source.measured.report(
        await measureContext(sent, source.context, {
          boundedBelow: source.context.window - source.context.outputReserve,
          sentFor: source.sentFor,
        }),
      );
    recordSentRequest(sent, source.sentFor);
  }
  return sent;
}
