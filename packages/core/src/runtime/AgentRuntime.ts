import type { Collective } from '../collective/Collective.js';
import type { AgentParticipant } from '../collective/participant.js';
import { buildSystemPrompt, delegationTargets } from '../collective/system-prompt.js';
import type { ResolvedConfig } from '../config/config-schema.js';
import { settingsForAgent } from '../config/load-config.js';
import { textOf, toolUsesOf, type ToolUseBlock, type Usage } from '../conversation/message.js';
import { costOf, priceFor } from '../providers/pricing.js';
import type { UsageRecord } from '../providers/usage-summary.js';
import { errorMessage, LegionError, MaxIterationsError } from '../errors.js';
import { generate, type ModelResponse } from '../providers/llm-provider.js';
import type { ProviderFactory } from '../providers/ProviderFactory.js';
import { toolDefinition, type Tool, type ToolContext } from '../tools/tool.js';
import type { ToolExecutor } from '../tools/ToolExecutor.js';
import type { ToolRegistry } from '../tools/ToolRegistry.js';
import { COMMUNICATE_TOOL_NAME } from '../tools/builtin/communicate.js';
import { linkedSignal } from './linked-signal.js';
import type { ParticipantRuntime, RuntimeOutcome, TurnContext } from './turn.js';

export interface AgentRuntimeServices {
  collective: Collective;
  config: ResolvedConfig;
  providers: ProviderFactory;
  tools: ToolRegistry;
  executor: ToolExecutor;
  workspaceRoot: string | undefined;
}

/**
 * The LLM tool loop: call the model with the conversation, append its reply,
 * run the tools it asked for, append their results, and go again until it
 * answers without tool calls or a limit stops it.
 */
export class AgentRuntime implements ParticipantRuntime {
  constructor(private readonly services: AgentRuntimeServices) {}

  async handleMessage(turn: TurnContext): Promise<RuntimeOutcome> {
    const agent = turn.participant as AgentParticipant;
    const { collective, config, providers, executor } = this.services;
    const { model, limits } = settingsForAgent(config, agent);
    const provider = providers.forParticipant(agent.id, model);
    const tools = this.toolsFor(agent);
    const request = {
      system: buildSystemPrompt(agent, collective),
      messages: turn.conversation.history(),
      tools: [...tools.values()].map(toolDefinition),
      maxTokens: model.maxTokens,
      temperature: model.temperature,
    };
    const toolContext: ToolContext = {
      callerId: agent.id,
      chain: turn.chain,
      conversation: turn.conversation.ref,
      session: turn.session,
      signal: turn.signal,
      events: turn.events,
      workspaceRoot: this.services.workspaceRoot,
    };
    const streamText = turn.events.hasListeners('text:delta')
      ? (text: string) => turn.events.emit('text:delta', { ...turn.conversation.ref, participantId: agent.id, text })
      : undefined;
    const repeats = { signature: '', count: 0 };

    for (let iteration = 0; iteration < limits.maxIterations; iteration++) {
      if (turn.signal.aborted) return { status: 'error', code: 'cancelled', error: `${agent.id} was cancelled.` };
      let response: ModelResponse;
      const call = linkedSignal(turn.signal);
      try {
        response = await generate(provider, request, { signal: call.signal, onTextDelta: streamText });
      } catch (error) {
        // Nothing of a failed or cancelled response is appended: the log never holds half a reply.
        if (turn.signal.aborted) return { status: 'error', code: 'cancelled', error: `${agent.id} was cancelled while its model was answering.` };
        return { status: 'error', code: error instanceof LegionError ? error.code : 'model_failed', error: `${agent.id}'s model call failed: ${errorMessage(error)}` };
      } finally {
        call.dispose();
      }
      const assistant = turn.conversation.append(
        { role: 'assistant', content: response.content, ...(response.usage ? { usage: response.usage } : {}), model: `${provider.name}/${provider.model}` },
        agent.id,
      );
      if (response.usage) this.recordUsage(turn, agent.id, provider.name, provider.model, response.usage);
      const toolUses = toolUsesOf(assistant);
      if (toolUses.length === 0) return { status: 'success', reply: textOf(assistant), message: assistant };
      const preflight = new Map(response.inputErrors);
      for (const toolUse of toolUses) {
        const loop = detectLoop(repeats, toolUse, limits.maxRepeatedToolCalls);
        if (loop) preflight.set(toolUse.id, loop);
      }
      const results = await executor.executeAll(toolUses, toolContext, {
        tools,
        defaultTimeoutMs: limits.toolTimeoutMs,
        preflightErrors: preflight,
      });
      turn.conversation.append({ role: 'user', content: results }, agent.id);
    }
    return { status: 'error', code: 'max_iterations', error: new MaxIterationsError(agent.id, limits.maxIterations).message };
  }

  private recordUsage(turn: TurnContext, participantId: string, providerName: string, model: string, usage: Usage): void {
    const cost = costOf(usage, priceFor(model, this.services.config.pricing));
    const record: UsageRecord = {
      version: 1,
      at: new Date().toISOString(),
      participantId,
      conversationId: turn.conversation.ref.conversationId,
      chain: [...turn.chain],
      provider: providerName,
      model,
      usage,
      costUsd: cost ?? null,
    };
    turn.session.recordUsage(record);
    turn.events.emit('usage:report', { ...turn.conversation.ref, participantId, chain: record.chain, usage, provider: providerName, model, costUsd: record.costUsd });
  }

  /** The tools this agent's model sees: its tool permission, and communicate only if it has someone to talk to. */
  private toolsFor(agent: AgentParticipant): Map<string, Tool> {
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
