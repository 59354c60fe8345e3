import type { AuthEngine } from './authorization/index.js';
import { describeAgentTools, withSchemaTokens, type AgentRuntime, type AgentToolsView, type Session } from './engine/index.js';
import { LegionError, type Message } from './kernel/index.js';
import { buildContextReport, loadTokenCounter, modelWindowFor, toolSchemasOf, type ContextReport } from './model/index.js';
import {
  buildSystemPrompt,
  catalogueWindowNeedsDataset,
  loadPriceDataset,
  type AgentParticipant,
  type Collective,
  type ResolvedConfig,
} from './team/index.js';
import { readLoadedTools, type McpToolProvider, type ToolRegistry } from './tools/index.js';

/** What the reports on an agent read of its Legion. */
export interface ReportParts {
  tools: ToolRegistry;
  collective: Collective;
  auth: AuthEngine;
  config: ResolvedConfig;
  agentRuntime: AgentRuntime;
  mcp: McpToolProvider | undefined;
}

export interface ContextReportOptions {
  session?: Session | undefined;
  initiator?: string | undefined;
  name?: string | undefined;
  mcp?: boolean | undefined;
  endpoint?: boolean | undefined;
}

/** Offline, a model the config does not size takes its window from the bundled catalogue: loaded once, when first needed. */
async function catalogueWindowOf(legion: ReportParts, agent: AgentParticipant): Promise<void> {
  const model = agent.model ?? legion.config.defaultModel;
  const call = { provider: model.provider, model: model.model, baseURL: model.baseURL ?? legion.config.providers[model.provider]?.baseURL };
  if (modelWindowFor(model, legion.config.models, legion.config.providers).source === 'default' && catalogueWindowNeedsDataset(call))
    await loadPriceDataset().catch(() => undefined);
}

/** `Legion.describeTools`: every tool as the agent's model meets it (see there). */
export async function describeToolsOf(legion: ReportParts, agentId: string): Promise<AgentToolsView> {
  await legion.tools.ready();
  const agent = legion.collective.require(agentId);
  if (agent.type !== 'agent')
    throw new LegionError('not_an_agent', `"${agentId}" is a ${agent.type}, not an agent: only agents have models that see tools.`, {
      participantId: agentId,
    });
  await catalogueWindowOf(legion, agent);
  const view = describeAgentTools(agent, {
    registry: legion.tools,
    visible: legion.agentRuntime.toolsFor(agent),
    auth: legion.auth,
    collective: legion.collective,
    mcpProblems: legion.mcp?.problems ?? [],
  });
  return withSchemaTokens(
    view,
    legion.agentRuntime.toolOffer(agent),
    legion.agentRuntime.toolsFor(agent),
    toolSchemasOf(legion.config, agent),
    await loadTokenCounter(),
  );
}

/** `Legion.contextReport`: what the agent's next model request would carry, counted (see there). */
export async function contextReportOf(legion: ReportParts, agentId: string, options: ContextReportOptions = {}): Promise<ContextReport> {
  if (options.mcp !== false) await legion.tools.ready();
  const agent = legion.collective.require(agentId);
  if (agent.type !== 'agent')
    throw new LegionError('not_an_agent', `"${agentId}" is a ${agent.type}, not an agent: only agents have a model's context.`, {
      participantId: agentId,
    });
  if (options.endpoint !== false) await legion.agentRuntime.learnWindow(agent);
  else await catalogueWindowOf(legion, agent);
  // What the requests carry: under compact tool schemas, the compact forms and what the conversation loaded.
  const offer = legion.agentRuntime.toolOffer(agent);
  let tools = offer.initial();
  let conversation: { id: string; messages: readonly Message[] } | undefined;
  // The conversation is the key its requests are recorded under: the provider's figure for the last one sent is the report's truth too.
  let sentFor: object | undefined;
  if (options.session) {
    const initiator = options.initiator ?? legion.collective.defaultUser()?.id ?? 'user';
    const opened = options.session.conversation({ initiator, responder: agentId, name: options.name });
    conversation = { id: opened.ref.conversationId, messages: await opened.history() };
    sentFor = opened;
    if (offer.onDemand)
      tools = offer.definitions(await readLoadedTools(options.session.agentState, agentId, conversation.id), conversation.messages);
  }
  return buildContextReport({
    agent,
    config: legion.config,
    system: buildSystemPrompt(agent, legion.collective),
    tools,
    conversation,
    options: { sentFor },
  });
}
