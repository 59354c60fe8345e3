import type { AgentParticipant, ContextSettings, ResolvedConfig } from '../../team/index.js';
import { settingsForAgent } from '../../team/index.js';
import type { Message } from '../../kernel/index.js';
import type { ToolDefinition } from '../providers/llm-provider.js';
import { contextSettingsFor } from './context-settings.js';
import { modelWindowFor, type ModelWindowSource } from './model-table.js';
import { measureContext, type MeasureOptions } from './token-accounting.js';

/** What an agent's next request would carry, against its window: what `/context` and `legion doctor` show. */
export interface ContextReport {
  agentId: string;
  /** `provider/model`. */
  model: string;
  /** Where the window came from; `default` means the model is unknown and the window a guess. */
  windowSource: ModelWindowSource;
  /** Why the window is not the model's own (Ollama's num_ctx). */
  windowNote?: string | undefined;
  /** The profile and every threshold the agent runs with. */
  settings: ContextSettings;
  /** Tokens a request may hold: window − outputReserve. */
  limit: number;
  /** The system prompt's tokens. */
  system: number;
  tools: {
    count: number;
    tokens: number;
    /** Of the window, 0..1 (or more). */
    share: number;
    /** The largest definitions first (at most five). */
    largest: Array<{ name: string; tokens: number }>;
  };
  /** The conversation's messages, when a session was given. */
  messages?: { conversationId: string; count: number; tokens: number; fromProvider: number; estimated: number } | undefined;
  /** System prompt, tools and messages. */
  total: number;
  /** What needs attention: an unknown model, tool definitions over the budget. */
  warnings: string[];
}

export interface ContextReportInput {
  agent: AgentParticipant;
  config: ResolvedConfig;
  system: string;
  tools: readonly ToolDefinition[];
  conversation?: { id: string; messages: readonly Message[] } | undefined;
  options?: MeasureOptions | undefined;
}

/** Counts (with the tokenizer, never the byte bound) what the agent's next request would carry. */
export async function buildContextReport(input: ContextReportInput): Promise<ContextReport> {
  const { agent, config } = input;
  const { model } = settingsForAgent(config, agent);
  const window = modelWindowFor(model, config.models, config.providers);
  const settings = contextSettingsFor(config, agent);
  const options = { ...input.options, exact: true };
  const messages = input.conversation?.messages ?? [];
  const usage = await measureContext({ system: input.system, tools: input.tools, messages }, settings, options);
  const perTool = await Promise.all(
    input.tools.map(async (tool) => ({
      name: tool.name,
      tokens: (await measureContext({ system: '', tools: [tool], messages: [] }, settings, options)).tools,
    })),
  );
  const warnings: string[] = [];
  const label = `${model.provider}/${model.model}`;
  if (window.source === 'default' && agent.context?.window === undefined && config.context.window === undefined) {
    warnings.push(
      `${agent.id}: the model ${label} is not in the model table, so its window is taken to be ${settings.window} tokens. Give the real one: "models": { "${model.model}": { "window": N, "outputReserve": M } } in .legion/config.json, or "context": { "window": N } in the agent's file.`,
    );
  }
  const budget = Math.min(settings.pruneAtTokens, settings.summarizeAtTokens, usage.limit);
  if (usage.tools >= budget) {
    warnings.push(
      `${agent.id}: its ${input.tools.length} tool definitions alone take ${usage.tools} tokens, ${percent(usage.tools / settings.window)} of the ${settings.window}-token window, more than the ${settings.profile} profile's budget of ${budget} tokens before pruning and compaction. Give it fewer tools ("tools": [...] in its file) or a model with a larger window.`,
    );
  }
  return {
    agentId: agent.id,
    model: label,
    windowSource: window.source,
    ...(window.note ? { windowNote: window.note } : {}),
    settings,
    limit: usage.limit,
    system: usage.system,
    tools: {
      count: input.tools.length,
      tokens: usage.tools,
      share: usage.tools / settings.window,
      largest: perTool.sort((a, b) => b.tokens - a.tokens).slice(0, 5),
    },
    ...(input.conversation
      ? {
          messages: {
            conversationId: input.conversation.id,
            count: messages.length,
            tokens: usage.messages,
            fromProvider: usage.fromProvider,
            estimated: usage.estimated,
          },
        }
      : {}),
    total: usage.total,
    warnings,
  };
}

/** 0.0123 → "1.2%". */
export function percent(share: number): string {
  return `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
}
