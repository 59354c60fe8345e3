import type { ContextSettings } from '../collective/context-schema.js';
import { measureContext, recordSentRequest, type ContextUsage } from '../context/token-accounting.js';
import type { Message } from '../message.js';
import type { ModelRequest, ToolDefinition } from '../providers/llm-provider.js';
import { pruneToolResults, type PruneOptions } from '../context/prune-tool-results.js';

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
  /** The agent's context budget: with it and someone `measured` wants it, each request is measured (`measureContext`) and recorded as sent. */
  context?: ContextSettings | undefined;
  /**
   * Told each request's measure (the runtime's `context:usage` event). Asked first whether it is
   * wanted: measuring keeps per-message records that cost every step memory (bench/memory-runs.mjs
   * grew 30 → 36 MB measuring for nobody), and the relief stages measure for themselves.
   */
  measured?: { wanted(): boolean; report(usage: ContextUsage): void } | undefined;
  /**
   * Relief step 3 and the hard cap (`ContextStage`: compaction, the carried-over state,
   * the cap at the window). Runs last, on the request as the steps before made it.
   */
  compaction?: { apply(request: ModelRequest): Promise<ModelRequest> } | undefined;
}

/**
 * The model request of one step of the agent loop, built anew at every step
 * with arrays of its own: a provider that keeps a request, or changes it, sees
 * and touches neither the conversation's history nor a later step's request.
 * The one place that decides what the model sees, so the context builder
 * (token budget, eviction, compaction) takes over here.
 */
export async function buildModelRequest(source: ModelRequestSource): Promise<ModelRequest> {
  let history = await source.history();
  // Relief step 2: past pruneAtTokens, old tool results beyond the protected recent part become stubs naming their artifact (the log keeps them whole).
  if (source.pruning) history = await pruneToolResults(history, source, source.pruning);
  const messages = [...history];
  const request: ModelRequest = {
    system: source.system,
    messages,
    tools: [...(source.offerTools ? await source.offerTools(messages) : source.tools)],
    maxTokens: source.maxTokens,
    temperature: source.temperature,
  };
  // Relief step 3 and the hard cap.
  const sent = source.compaction ? await source.compaction.apply(request) : request;
  if (source.context && source.measured?.wanted()) {
    // What is measured and recorded is what goes: the reply to it reports usage for exactly these messages.
    const usage = await measureContext(sent, source.context, { boundedBelow: source.context.window - source.context.outputReserve });
    recordSentRequest(sent);
    source.measured.report(usage);
  }
  return sent;
}
