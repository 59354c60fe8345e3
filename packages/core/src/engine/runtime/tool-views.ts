import type { Collective, AgentParticipant, PolicyMode, ContextSettings } from '../../team/index.js';
import { delegationTargets } from '../../team/index.js';
import type { AuthEngine } from '../../authorization/index.js';
import { COMMUNICATE_TOOL_NAME } from '../../tools/index.js';
import type { McpServerProblem, Tool, ToolEffect, ToolRegistry } from '../../tools/index.js';

/** One tool as one agent's model meets it: shown or hidden (and why), and what a call of it needs. */
export interface AgentToolView {
  name: string;
  /** Which provider offers it: `builtin`, `workspace` (`.legion/tools/`), `mcp`, or a library's own (`programmatic`, …). */
  source: string;
  description: string;
  effect: ToolEffect;
  /** Whether the agent's model is shown it. */
  visible: boolean;
  /** Why the model is not shown it (set when `visible` is false). */
  hiddenBecause?: string;
  /** The standing decision for a call (no scoped rule applying), where it comes from, and whether scoped rules refine it. */
  approval: { mode: PolicyMode; reason: string; source: string; scoped: boolean };
  /** Tokens of its full schema (set for visible tools by `legion.describeTools`). */
  schemaTokens?: number;
  /**
   * How its definition reaches the model at first (set for visible tools by `legion.describeTools`):
   * `whole`; `compact` (one-line summary, parameters without prose); `on demand` (a catalogue line
   * until the agent loads it with `load_tools` or calls it); `never` (a policy denies every call).
   */
  offered?: 'whole' | 'compact' | 'on demand' | 'never';
}

/** Tools an agent would see but that are not there at all: a configured MCP server that failed. */
export interface MissingTools {
  /** The names they would have (`mcp__<server>__*`). */
  pattern: string;
  source: string;
  reason: string;
}

export interface AgentToolsView {
  agent: string;
  tools: AgentToolView[];
  missing: MissingTools[];
  /** What its tool definitions cost per request, in full and as offered (set by `legion.describeTools`). */
  schemaTokens?: ToolSchemaTokens;
}

/** A family whose schemas wait to be loaded, and what that saves each request until it is. */
export interface OnDemandFamily {
  family: string;
  tools: number;
  /** Its tools' full schemas, were they sent in every request. */
  schemaTokens: number;
  /** What a request saves while the family is not loaded (its schemas, less its catalogue line). */
  savedTokens: number;
}

/** What one agent's tool definitions cost (cl100k_base tokens of their JSON, the form providers are sent). */
export interface ToolSchemaTokens {
  toolSchemas: ContextSettings['toolSchemas'];
  /**
   * Why the agent's schemas are sent as they are: `config` when `context.toolSchemas` is set (the
   * agent's or the workspace's), else its profile's default, `small` for a window of at most
   * `SMALL_WINDOW_TOKENS` (compact: a line each, loaded on demand) or `cloud` (full).
   */
  toolSchemasFrom: 'config' | 'small' | 'cloud';
  /** The window the profile was chosen for. */
  window: number;
  /** Every tool it may use, sent whole: what each request carried before tools could load on demand. */
  fullTokens: number;
  /** Every tool it may use in compact form (one-line summary, parameters without prose). */
  compactTokens: number;
  /** What its first request carries, before anything is loaded or used. */
  offeredTokens: number;
  /** Per tool, its full schema. */
  perTool: Record<string, number>;
  onDemand: OnDemandFamily[];
}

export interface ToolViewSources {
  registry: ToolRegistry;
  /** The tools the agent's model is shown (`AgentRuntime.toolsFor`), the single source of truth. */
  visible: ReadonlyMap<string, Tool>;
  auth: AuthEngine;
  collective: Collective;
  mcpProblems: readonly McpServerProblem[];
}

/** Every registered tool for one agent, and the MCP servers whose tools are missing; what `legion tools list` prints. */
export function describeAgentTools(agent: AgentParticipant, sources: ToolViewSources): AgentToolsView {
  const tools = sources.registry.list().map((tool): AgentToolView => {
    const visible = sources.visible.has(tool.name);
    const hiddenBecause = visible ? undefined : whyHidden(agent, tool, sources.collective);
    return {
      name: tool.name,
      source: sources.registry.providerOf(tool.name) ?? 'programmatic',
      description: tool.description,
      effect: tool.effect ?? 'write',
      visible,
      ...(hiddenBecause === undefined ? {} : { hiddenBecause }),
      approval: sources.auth.summarize(agent, tool),
    };
  });
  const missing = sources.mcpProblems.map((problem) => ({
    pattern: `mcp__${problem.server}__*`,
    source: 'mcp',
    reason: `MCP server "${problem.server}" failed: ${problem.message}`,
  }));
  return { agent: agent.id, tools: tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), missing };
}

function whyHidden(agent: AgentParticipant, tool: Tool, collective: Collective): string {
  if (tool.name === COMMUNICATE_TOOL_NAME && delegationTargets(agent, collective).length === 0) {
    return `nobody to talk to: its "delegation" (${JSON.stringify(agent.delegation)}) lets it reach no active participant`;
  }
  if (agent.tools === 'none') return 'its "tools" is "none"';
  return `not in its "tools" (${JSON.stringify(agent.tools)})`;
}
