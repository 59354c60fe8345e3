import type { Collective } from '../collective/Collective.js';
import type { AgentParticipant } from '../collective/participant.js';
import { buildSystemPrompt, delegationTargets } from '../collective/system-prompt.js';
import type { ResolvedConfig } from '../config/config-schema.js';
import { settingsForAgent } from '../config/load-config.js';
import { ARTIFACT_READ_TOOL_NAME } from '../context/evict-tool-result.js';
import { textOf, toolUsesOf, type ToolResultBlock, type ToolUseBlock, type Usage } from '../message.js';
import { costOf } from '../config/pricing.js';
import { PriceBook } from '../config/price-book.js';
import type { UsageRecord } from '../storage/usage-summary.js';
import { errorMessage, LegionError, MaxIterationsError } from '../errors.js';
import {
  generate,
  type CallProgress,
  type LLMProvider,
  type ModelRequest,
  type ModelResponse,
  type ProviderRetry,
} from '../providers/llm-provider.js';
import type { ProviderFactory } from '../providers/ProviderFactory.js';
import type { Tool } from '../tools/tool.js';
import type { ToolRegistry } from '../tools/ToolRegistry.js';
import { COMMUNICATE_TOOL_NAME } from '../tools/builtin/communicate.js';
import { waitingParticipants } from '../session/delegation-stack.js';
import { delegationOf, treeOf } from '../session/message-work.js';
import type { DelegationFrame } from '../storage/delegation-frame.js';
import { CallSignals } from './linked-signal.js';
import { reusesCallSignals } from '../providers/signal-ownership.js';
import { unansweredToolUses } from '../conversation/unanswered-tool-uses.js';
import { buildModelRequest, type ModelRequestSource } from './model-request.js';
import { sessionBudgetError } from './session-budget.js';
import { contextSettingsFor } from '../context/context-settings.js';
import { measureContext, settleSentRequest, type ContextUsage } from '../context/token-accounting.js';
import { createLoadToolsTool } from '../tools/builtin/tool-loading/load-tools.js';
import { readLoadedTools } from '../tools/builtin/tool-loading/loaded-tools.js';
import { loadableTools, loadHints, planToolOffer, type ToolOffer, type ToolOfferSources } from './tool-offer.js';
import { resumeToolPhase, runToolPhase, type ToolPhaseResult, type ToolPhaseServices } from './tool-phase.js';
import type { CompactOutcome, ParticipantRuntime, RuntimeOutcome, TurnContext } from '../session/turn.js';
import type { CompactionReason } from '../storage/log-entry.js';
import { isContextTooLongError, windowNamedBy } from '../providers/provider-errors.js';
import { modelWindowFor } from '../context/model-table.js';
import { ContextOverflowError } from '../context/context-budget.js';
import { ContextStage } from './context-stage.js';
import type { ChatTrace } from '../tracing/LegionTracer.js';

export interface AgentRuntimeServices extends ToolPhaseServices {
  collective: Collective;
  config: ResolvedConfig;
  providers: ProviderFactory;
  tools: ToolRegistry;
  workspaceRoot: string | undefined;
}

/**
 * The LLM tool loop: call the model with the conversation, append its reply,
 * run the tools it asked for (check, approve, execute), append their results,
 * and go again until it answers without tool calls, a limit stops it, or it
 * pauses on approvals (to be resumed later from the log).
 */
export class AgentRuntime implements ParticipantRuntime {
  /** `load_tools`, offered by the runtime to agents whose tools load on demand (it is in no registry: it grants nothing new). */
  private readonly loader = createLoadToolsTool({
    loadable: (agentId) => {
      const agent = this.services.collective.get(agentId);
      return agent?.type === 'agent' ? loadableTools(this.offerSources(agent)) : [];
    },
  });
  /** List prices load on the first call to a model that needs one; config prices and local models never load them. */
  private readonly prices: PriceBook;

  constructor(private readonly services: AgentRuntimeServices) {
    this.prices = new PriceBook(() => services.config.pricing);
  }

  handleMessage(turn: TurnContext): Promise<RuntimeOutcome> {
    return this.run(turn, false);
  }

  resume(turn: TurnContext): Promise<RuntimeOutcome> {
    return this.run(turn, true);
  }

  private async run(turn: TurnContext, resuming: boolean): Promise<RuntimeOutcome> {
    const calls = new CallSignals(turn.signal);
    try {
      return await this.runSteps(turn, resuming, calls);
    } finally {
      calls.dispose();
    }
  }

  private async runSteps(turn: TurnContext, resuming: boolean, calls: CallSignals): Promise<RuntimeOutcome> {
    const agent = turn.participant as AgentParticipant;
    const { collective, config, providers } = this.services;
    const { model, limits } = settingsForAgent(config, agent);
    const provider = providers.forParticipant(agent.id, model);
    // Deferred providers (MCP servers) load on the first turn that needs tools; later it is a resolved promise.
    await this.services.tools.ready();
    const offer = this.toolOffer(agent);
    const tools = offer.callable;
    const settings = contextSettingsFor(config, agent);
    // Object.assign, not `{ ...base, more }`: V8 keeps objects built by a spread plus further properties through
    // young-generation GCs, so per-turn garbage would pile up in the old generation (bench/memory-runs.mjs).
    const phase = {
      turn,
      agent,
      tools,
      defaultTimeoutMs: limits.toolTimeoutMs,
      services: this.services,
      workspaceRoot: this.services.workspaceRoot,
      context: settings,
    };
    const stage = this.contextStage(turn, agent, provider);
    // Every field in the one literal: storing the stage into the object after it was built (a property
    // added later) made TurboFan's concurrent compile jobs use ~4 MB more malloc'd zone memory over
    // 2,000 runs, which glibc keeps in its per-thread arenas (bench/memory-runs.mjs, RSS growth).
    const context: ModelRequestSource = {
      compaction: stage,
      system: buildSystemPrompt(agent, collective),
      tools: offer.initial(),
      ...(offer.onDemand
        ? {
            offerTools: async (messages) =>
              offer.definitions(await readLoadedTools(turn.session.agentState, agent.id, turn.conversation.ref.conversationId), messages),
          }
        : {}),
      maxTokens: model.maxTokens,
      temperature: model.temperature,
      history: () => turn.conversation.history(),
      pruning: {
        pruneAtTokens: settings.pruneAtTokens,
        protectRecentTokens: settings.protectRecentTokens,
        artifacts: turn.session.artifacts,
        canReadArtifacts: tools.has(ARTIFACT_READ_TOOL_NAME),
      },
      context: settings,
      sentFor: turn.conversation,
      measured: {
        wanted: () => turn.events.hasListeners('context:usage'),
        report: (usage: ContextUsage) =>
          turn.events.emit('context:usage', Object.assign({}, turn.conversation.ref, { participantId: agent.id, usage })),
      },
    };
    // Asked at every delta, not once per turn: a UI that subscribes mid-turn gets the rest of the text.
    const streamText = (text: string): void => {
      if (turn.events.hasListeners('text:delta'))
        turn.events.emit('text:delta', Object.assign({}, turn.conversation.ref, { participantId: agent.id, text }));
    };
    const repeats = { signature: '', count: 0 };
    // The message's whole delegation tree shares one count (limits.maxModelCallsPerMessage): read from memory, never the disk, per step.
    const work = turn.session.messageWork(turn.frames);
    // Reset for every call: what arrived of it, should it end before the provider reports its usage.
    const progress: CallProgress = { received: false, outputChars: 0 };

    if (resuming) {
      const waiting = unansweredToolUses(await turn.conversation.history());
      if (waiting.length > 0) {
        const paused = await this.settle(turn, agent.id, await resumeToolPhase(Object.assign({}, phase, { toolUses: waiting })));
        if (paused) return paused;
      }
    }

    for (let iteration = 0; iteration < limits.maxIterations; iteration++) {
      if (turn.signal.aborted) return { status: 'error', code: 'cancelled', error: `${agent.id} was cancelled.` };
      // Without a session budget nothing is read (and no promise made) per step.
      const overBudget =
        limits.maxSessionCostUsd !== undefined || limits.maxSessionTokens !== undefined
          ? await sessionBudgetError(turn.session, agent.id, limits)
          : undefined;
      if (overBudget) return { status: 'error', code: overBudget.code, error: overBudget.message };
      const overWork = work.startModelCall(agent.id, limits);
      if (overWork) return { status: 'error', code: overWork.code, error: overWork.message };
      let response: ModelResponse;
      const signal = calls.next(reusesCallSignals(provider));
      let compactedOnOverflow = false;
      let chat: ChatTrace | undefined;
      let request: ModelRequest | undefined;
      progress.received = false;
      progress.outputChars = 0;
      try {
        for (;;) {
          const built = await buildModelRequest(context);
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
              onTextDelta: streamText,
              onRetry: (retry: ProviderRetry) =>
                turn.events.emit('provider:retry', {
                  ...turn.conversation.ref,
                  participantId: agent.id,
                  provider: provider.name,
                  model: provider.model,
                  ...retry,
                }),
            };
            const answering = chat ? chat.run(() => generate(provider, built, options)) : generate(provider, built, options);
            // The reply's list price is needed once it is in: the list (some 40 ms to load) loads
            // while the model answers. On the next turn of the loop, not now: the request goes out first.
            setImmediate(() => this.prices.prefetch({ provider: provider.name, model: provider.model, baseURL: provider.baseURL }));
            response = await answering;
            break;
          } catch (error) {
            chat?.failed(
              turn.signal.aborted ? 'cancelled' : error instanceof LegionError ? error.code : 'model_failed',
              errorMessage(error),
            );
            // The model's window is smaller than Legion thought: one compaction and one retry, never a loop.
            if (compactedOnOverflow || !isContextTooLongError(error) || turn.signal.aborted) throw error;
            compactedOnOverflow = true;
            // The window the provider named holds for the rest of the turn: the summarizer's request and the retry fit it.
            stage.limitWindow(windowNamedBy(error));
            if ((await stage.compact('overflow')).status !== 'compacted') throw error;
          }
        }
      } catch (error) {
        // Nothing of a failed or cancelled response is appended: the log never holds half a reply. What it cost is counted.
        if (progress.received && request) await this.recordUnreported(turn, agent, provider, request, progress);
        if (turn.signal.aborted)
          return { status: 'error', code: 'cancelled', error: `${agent.id} was cancelled while its model was answering.` };
        if (error instanceof ContextOverflowError) return { status: 'error', code: error.code, error: error.message };
        const retried = compactedOnOverflow && isContextTooLongError(error) ? ' (after one compaction and one retry)' : '';
        return {
          status: 'error',
          code: error instanceof LegionError ? error.code : 'model_failed',
          error: `${agent.id}'s model call failed${retried}: ${errorMessage(error)}`,
        };
      } finally {
        calls.done();
      }
      // The model's part ends now; the span ends once the usage's cost is known.
      const answeredAt = chat ? Date.now() : 0;
      const replyBytes = response.content.reduce(
        (total, block) => total + Buffer.byteLength(block.type === 'text' ? block.text : JSON.stringify(block), 'utf8'),
        0,
      );
      if (replyBytes > limits.maxReplyBytes) {
        chat?.answered(response, answeredAt, undefined);
        return {
          status: 'error',
          code: 'reply_too_large',
          error: `${agent.id}'s model replied with ${replyBytes} bytes; the limit is ${limits.maxReplyBytes} (limits.maxReplyBytes). Nothing was added to the conversation.`,
        };
      }
      // A reply with nothing in it is no answer: appended, it would also be refused by the API in every later request.
      if (response.content.length === 0) {
        chat?.answered(response, answeredAt, undefined);
        return {
          status: 'error',
          code: 'provider_empty_response',
          error: `${agent.id}'s model call failed: ${provider.name} (${provider.model}) answered with nothing (finish reason "${response.finishReason}"); nothing was added to the conversation. Try again, or check the endpoint.`,
        };
      }
      const assistant = await turn.conversation.append(
        {
          role: 'assistant',
          content: response.content,
          ...(response.usage ? { usage: response.usage } : {}),
          model: `${provider.name}/${provider.model}`,
        },
        agent.id,
      );
      // A reply without usage leaves nothing to trust in the record of its request: dropped, not kept per conversation.
      settleSentRequest(turn.conversation, assistant);
      const costUsd = response.usage ? await this.recordUsage(turn, agent.id, provider, response.usage, turn.frames) : undefined;
      chat?.answered(response, answeredAt, costUsd);
      const toolUses = toolUsesOf(assistant);
      if (toolUses.length === 0) {
        // Cut off at the output limit: still the reply, but said to be cut so the caller can ask for the rest.
        return {
          status: 'success',
          reply: textOf(assistant),
          message: assistant,
          ...(response.finishReason === 'max_tokens' ? { truncated: true } : {}),
        };
      }
      const preflight = new Map(response.inputErrors);
      if (offer.onDemand)
        for (const [id, hint] of loadHints(
          offer,
          toolUses,
          await readLoadedTools(turn.session.agentState, agent.id, turn.conversation.ref.conversationId),
          this.services.executor,
        ))
          if (!preflight.has(id)) preflight.set(id, hint);
      for (const toolUse of toolUses) {
        const loop = detectLoop(repeats, toolUse, limits.maxRepeatedToolCalls);
        if (loop) preflight.set(toolUse.id, loop);
      }
      const paused = await this.settle(turn, agent.id, await runToolPhase(Object.assign({}, phase, { toolUses, preflight })));
      if (paused) return paused;
    }
    return { status: 'error', code: 'max_iterations', error: new MaxIterationsError(agent.id, limits.maxIterations).message };
  }

  /** Summarizes the older part of the conversation's context now (`legion compact`, `/compact`), under the lease the caller holds. */
  async compact(turn: Omit<TurnContext, 'message'>, reason: CompactionReason): Promise<CompactOutcome> {
    const agent = turn.participant as AgentParticipant;
    const { model } = settingsForAgent(this.services.config, agent);
    await this.services.tools.ready();
    const stage = this.contextStage(turn, agent, this.services.providers.forParticipant(agent.id, model));
    stage.fixed = { system: buildSystemPrompt(agent, this.services.collective), tools: this.toolOffer(agent).initial() };
    return stage.compact(reason);
  }

  /** The context stages of this agent's requests in this turn; the summarizer is the configured one, else the agent's model. */
  private contextStage(turn: Omit<TurnContext, 'message'>, agent: AgentParticipant, provider: LLMProvider): ContextStage {
    const { config } = this.services;
    const settings = contextSettingsFor(config, agent);
    const windowKnown =
      (agent.context?.window ?? config.context.window) !== undefined ||
      modelWindowFor(settingsForAgent(config, agent).model, config.models).source !== 'default';
    return new ContextStage({
      turn,
      agent,
      settings,
      windowKnown,
      summarizer: () => (settings.summarizer ? this.services.providers.forModel(settings.summarizer) : provider),
      onUsage: (usage, summarizer) => this.recordUsage(turn, agent.id, summarizer, usage).then(() => undefined),
    });
  }

  /** Appends the results that are in; if calls still wait on approvals or a user's answer, the turn pauses here. */
  private async settle(turn: TurnContext, agentId: string, phase: ToolPhaseResult): Promise<RuntimeOutcome | undefined> {
    if (phase.results.length > 0)
      await turn.conversation.append({ role: 'user', content: phase.results satisfies ToolResultBlock[] }, agentId);
    if (phase.paused.length === 0 && phase.asked.length === 0) return undefined;
    return { status: 'paused', requests: phase.paused, ...(phase.asked.length > 0 ? { questions: phase.asked } : {}) };
  }

  /**
   * A call that ended (cancelled, or broken off) after the model started answering was paid for, but
   * the provider never reported its usage: it is counted as Legion estimates it (the request as the
   * context budget measures it, the answer so far at ~4 characters a token) and marked `estimated`,
   * so a cancelled turn does not report "0 tokens · $0".
   */
  private async recordUnreported(
    turn: TurnContext,
    agent: AgentParticipant,
    provider: LLMProvider,
    request: ModelRequest,
    progress: CallProgress,
  ): Promise<void> {
    try {
      const measured = await measureContext(request, contextSettingsFor(this.services.config, agent), {
        exact: true,
        sentFor: turn.conversation,
      });
      await this.recordUsage(
        turn,
        agent.id,
        provider,
        { inputTokens: measured.total, outputTokens: Math.ceil(progress.outputChars / 4) },
        turn.frames,
        true,
      );
    } catch {
      // The turn's own error is what its caller must hear; a ledger that cannot take the estimate now loses only the estimate.
    }
  }

  /**
   * Records a model call's usage; its cost (null: no known price). A call of the agent loop names the
   * delegation tree it counted against (`tree`), so a tree resumed elsewhere is recounted from the ledger.
   */
  private async recordUsage(
    turn: Omit<TurnContext, 'message'>,
    participantId: string,
    provider: LLMProvider,
    usage: Usage,
    tree?: readonly DelegationFrame[],
    estimated = false,
  ): Promise<number | null> {
    const { name: providerName, model } = provider;
    const quote = this.prices.quote({ provider: providerName, model, baseURL: provider.baseURL });
    const cost = costOf(usage, (quote instanceof Promise ? await quote : quote).price);
    const record: UsageRecord = {
      version: 1,
      at: new Date().toISOString(),
      participantId,
      conversationId: turn.conversation.ref.conversationId,
      chain: waitingParticipants(turn.frames),
      provider: providerName,
      model,
      usage,
      costUsd: cost ?? null,
      tree: tree && treeOf(tree),
      delegation: tree && delegationOf(tree),
      ...(estimated ? { estimated: true as const } : {}),
    };
    await turn.session.recordUsage(record);
    turn.events.emit(
      'usage:report',
      Object.assign({}, turn.conversation.ref, {
        participantId,
        chain: record.chain,
        usage,
        provider: providerName,
        model,
        costUsd: record.costUsd,
      }),
    );
    return record.costUsd;
  }

  /** How this agent's tools reach its model: all whole, or some loaded on demand (`context.toolSchemas`, lazy MCP servers). */
  toolOffer(agent: AgentParticipant): ToolOffer {
    return planToolOffer(Object.assign({}, this.offerSources(agent), { loader: this.loader }));
  }

  private offerSources(agent: AgentParticipant): Omit<ToolOfferSources, 'loader'> {
    const { toolSchemas } = contextSettingsFor(this.services.config, agent);
    return {
      agent,
      visible: this.toolsFor(agent),
      toolSchemas,
      auth: this.services.auth,
      providerOf: (name) => this.services.tools.providerOf(name),
    };
  }

  /** The tools this agent may use: its tool permission, and communicate only if it has someone to talk to (`toolOffer` says which of them its model is sent whole). */
  toolsFor(agent: AgentParticipant): Map<string, Tool> {
    const visible = new Map<string, Tool>();
    for (const tool of this.services.tools.allowedBy(agent.tools)) {
      if (tool.name === COMMUNICATE_TOOL_NAME && delegationTargets(agent, this.services.collective).length === 0) continue;
      visible.set(tool.name, tool);
    }
    return visible;
  }
}

/** The same call with the same input, again and again, is a loop: refuse it with a reason. */
function detectLoop(state: { signature: string; count: number }, toolUse: ToolUseBlock, max: number): string | undefined {
  const signature = `${toolUse.name}\u0000${JSON.stringify(toolUse.input)}`;
  state.count = signature === state.signature ? state.count + 1 : 1;
  state.signature = signature;
  if (state.count < max) return undefined;
  return `Loop detected: you called ${toolUse.name} with the same input ${state.count} times in a row. It was not run again. Use the earlier result, change the input, or answer.`;
}
