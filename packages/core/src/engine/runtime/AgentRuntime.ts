import { groupedNumber } from '../../kernel/index.js';
import type { Collective, ContextSettings, AgentParticipant, ResolvedConfig } from '../../team/index.js';
import { buildSystemPrompt, catalogueWindowNeedsDataset, delegationTargets, loadPriceDataset, settingsForAgent } from '../../team/index.js';
import { contextSettingsFor, learnEndpointWindow, modelWindowFor } from '../../model/index.js';
import type { ProviderFactory } from '../../model/index.js';
import type { CompactOutcome, ParticipantRuntime, RuntimeOutcome, TurnContext } from '../../session/index.js';
import type { CompactionReason } from '../../store/index.js';
import { COMMUNICATE_TOOL_NAME, createLoadToolsTool, readLoadedTools } from '../../tools/index.js';
import type { Tool, ToolRegistry } from '../../tools/index.js';
import { runAgentLoop } from './agent-loop.js';
import { AgentTurn } from './agent-turn.js';
import { CallSignals } from './linked-signal.js';
import { LoadedToolsOfStep, textDeltaReporter } from './loop-fast-paths.js';
import { loadableTools, planToolOffer, type ToolOffer, type ToolOfferSources } from './tool-offer.js';
import type { ToolPhaseServices } from './tool-phase.js';
import { contextStageFor, turnRequestSource } from './turn-request.js';
import { resolveTurnSettings, type TurnSettings } from './turn-settings.js';
import { UsageRecorder } from './usage-recorder.js';

/** The longest a turn waits for an endpoint to say its model's window (a local server answers in milliseconds). */
const ENDPOINT_WINDOW_WAIT_MS = 2_000;

export interface AgentRuntimeServices extends ToolPhaseServices {
  collective: Collective;
  config: ResolvedConfig;
  providers: ProviderFactory;
  tools: ToolRegistry;
  workspaceRoot: string | undefined;
  /** Where an endpoint's key and base URL come from, for asking it the model's window. */
  env: NodeJS.ProcessEnv;
}

/**
 * Runs agents' turns: resolves the agent's settings once per turn, binds the loop's
 * stages to the turn (`AgentTurn`) and runs the loop (`runAgentLoop`): call the model,
 * append its reply, run the tools it asked for, append their results, and go again
 * until it answers without tool calls, a limit stops it, or it pauses on approvals
 * (to be resumed later from the log).
 */
export class AgentRuntime implements ParticipantRuntime {
  /** `load_tools`, offered by the runtime to agents whose tools load on demand (it is in no registry: it grants nothing new). */
  private readonly loader = createLoadToolsTool({
    loadable: (agentId) => {
      const agent = this.services.collective.get(agentId);
      return agent?.type === 'agent'
        ? loadableTools(this.offerSources(agent, contextSettingsFor(this.services.config, agent).toolSchemas))
        : [];
    },
  });
  private readonly usage: UsageRecorder;
  /** `provider/model`s whose guessed window the user has been told of (`window:guessed`). */
  private readonly guessesSaid = new Set<string>();

  constructor(private readonly services: AgentRuntimeServices) {
    this.usage = new UsageRecorder(() => services.config.pricing);
  }

  /** The config read again (an edited file): turns that start from now on resolve their settings from it. */
  useConfig(config: ResolvedConfig): void {
    this.services.config = config;
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
      // Deferred providers (MCP servers) load on the first turn that needs tools; later it is a resolved promise.
      await this.services.tools.ready();
      await this.learnWindow(turn.participant as AgentParticipant);
      const settings = this.settingsFor(turn.participant as AgentParticipant);
      if (!settings.windowKnown) this.sayGuessedWindow(turn, settings);
      return await runAgentLoop(this.stagesOf(turn, settings, calls), {
        agentId: settings.agent.id,
        resuming,
        maxIterations: settings.limits.maxIterations,
      });
    } finally {
      calls.dispose();
    }
  }

  /** The loop's stages bound to this turn; everything in them is made once per turn, not per step. */
  private stagesOf(turn: TurnContext, settings: TurnSettings, calls: CallSignals): AgentTurn {
    const { agent } = settings;
    const provider = this.services.providers.forParticipant(agent.id, settings.model);
    const stage = contextStageFor(turn, settings, provider, this.services.providers, this.usage);
    const loaded = new LoadedToolsOfStep(() => readLoadedTools(turn.session.agentState, agent.id, turn.conversation.ref.conversationId));
    const source = turnRequestSource(turn, settings, buildSystemPrompt(agent, this.services.collective), stage, loaded);
    return new AgentTurn({
      turn,
      settings,
      provider,
      usage: this.usage,
      work: turn.session.messageWork(turn.frames),
      call: {
        turn,
        settings,
        provider,
        source,
        stage,
        calls,
        progress: { received: false, outputChars: 0 },
        onTextDelta: textDeltaReporter(turn, agent.id),
        usage: this.usage,
      },
      tools: {
        turn,
        settings,
        // Object.assign, not `{ ...base, more }`: V8 keeps objects built by a spread plus further properties through
        // young-generation GCs, so per-turn garbage would pile up in the old generation (bench/memory-runs.mjs).
        phase: {
          turn,
          agent,
          tools: settings.offer.callable,
          defaultTimeoutMs: settings.limits.toolTimeoutMs,
          services: this.services,
          workspaceRoot: this.services.workspaceRoot,
          context: settings.context,
        },
        executor: this.services.executor,
        repeats: { signature: '', count: 0 },
        loaded,
      },
    });
  }

  /** Summarizes the older part of the conversation's context now (`legion compact`, `/compact`), under the lease the caller holds. */
  async compact(turn: Omit<TurnContext, 'message'>, reason: CompactionReason): Promise<CompactOutcome> {
    await this.services.tools.ready();
    const settings = this.settingsFor(turn.participant as AgentParticipant);
    const { agent } = settings;
    const provider = this.services.providers.forParticipant(agent.id, settings.model);
    const stage = contextStageFor(turn, settings, provider, this.services.providers, this.usage);
    stage.fixed = { system: buildSystemPrompt(agent, this.services.collective), tools: settings.offer.initial() };
    return stage.compact(reason);
  }

  /**
   * What the agent's endpoint says its model's window is, asked on its first turn (once per endpoint
   * and model) unless the agent or the config sets it. A slow endpoint holds the turn up at most
   * `ENDPOINT_WINDOW_WAIT_MS`: the turn goes with the table's window, a later one finds the answer.
   */
  async learnWindow(agent: AgentParticipant): Promise<void> {
    const config = this.services.config;
    if ((agent.context?.window ?? config.context.window) !== undefined) return;
    const { model } = settingsForAgent(config, agent);
    if (modelWindowFor(model, config.models).source === 'config') return;
    await learnEndpointWindow(model, config.providers, this.services.env, ENDPOINT_WINDOW_WAIT_MS);
    // Neither the endpoint nor the table knows it: the whole bundled catalogue may (loaded once, ~70 ms of CPU; a failure leaves the guess).
    const call = { provider: model.provider, model: model.model, baseURL: model.baseURL ?? config.providers[model.provider]?.baseURL };
    if (modelWindowFor(model, config.models, config.providers).source === 'default' && catalogueWindowNeedsDataset(call))
      await loadPriceDataset().catch(() => undefined);
  }

  /**
   * Tells the user, once per model in this process, that its window is a guess: the context stage
   * does not compact before sending under a guess, so a long conversation meets the provider's own
   * limit instead, and the user is the one who can name the real window.
   */
  private sayGuessedWindow(turn: TurnContext, settings: TurnSettings): void {
    const { provider, model } = settings.model;
    const key = `${provider}/${model}`;
    if (this.guessesSaid.has(key)) return;
    this.guessesSaid.add(key);
    const window = settings.context.window;
    turn.events.emit('window:guessed', {
      ...turn.conversation.ref,
      participantId: settings.agent.id,
      provider,
      model,
      window,
      text:
        `${settings.agent.id}'s model ${key} is unknown to Legion (no config entry, endpoint report, table or catalogue entry): ` +
        `its context window is taken to be ${groupedNumber(window)} tokens. ` +
        `Set the real one in .legion/config.json: "models": { "${key}": { "window": <tokens> } }.`,
    });
  }

  /** The agent's settings for one turn, resolved once: model, limits, context, tool offer. */
  private settingsFor(agent: AgentParticipant): TurnSettings {
    return resolveTurnSettings(this.services.config, agent, (toolSchemas) => this.planOffer(agent, toolSchemas));
  }

  /** How this agent's tools reach its model: all whole, or some loaded on demand (`context.toolSchemas`, lazy MCP servers). */
  toolOffer(agent: AgentParticipant): ToolOffer {
    return this.planOffer(agent, contextSettingsFor(this.services.config, agent).toolSchemas);
  }

  private planOffer(agent: AgentParticipant, toolSchemas: ContextSettings['toolSchemas']): ToolOffer {
    return planToolOffer(Object.assign({}, this.offerSources(agent, toolSchemas), { loader: this.loader }));
  }

  private offerSources(agent: AgentParticipant, toolSchemas: ContextSettings['toolSchemas']): Omit<ToolOfferSources, 'loader'> {
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
