import type { AgentParticipant, ContextSettings } from '../../team/index.js';
import type { AuthEngine } from '../../authorization/index.js';
import type { Message, ToolUseBlock } from '../../kernel/index.js';
import type { ToolExecutor } from '../../tools/index.js';
import type { ToolDefinition } from '../../model/index.js';
import {
  COMMUNICATE_TOOL_NAME,
  LOAD_TOOLS_DESCRIPTION,
  type LoadableTool,
  catalogueLine,
  compactToolDefinition,
  toolDefinition,
  type Tool,
} from '../../tools/index.js';

/** How one agent's tools reach its model during a turn. */
export interface ToolOffer {
  /** Whether any tool waits to be loaded: then the model gets `load_tools` and a catalogue, and the offer changes as it loads or uses tools. */
  onDemand: boolean;
  /** The tools that wait to be loaded, with their families (denied ones are not among them). */
  loadable: readonly LoadableTool[];
  /** Every tool the agent may call this turn (the loader included when on demand): what the tool phase runs. */
  callable: ReadonlyMap<string, Tool>;
  /** The definitions of one step, given the tools loaded in the conversation and the messages the model is sent. */
  definitions(loaded: ReadonlySet<string>, messages: readonly Message[]): ToolDefinition[];
  /** Those definitions before anything is loaded or used: what `legion tools list` counts. */
  initial(): ToolDefinition[];
  /** Whether a tool waits to be loaded and is not loaded yet (its model had at most its compact form). */
  unloaded(name: string, loaded: ReadonlySet<string>): boolean;
}

export interface ToolOfferSources {
  agent: AgentParticipant;
  /** The tools its permission lets through (`AgentRuntime.toolsFor`). */
  visible: ReadonlyMap<string, Tool>;
  toolSchemas: ContextSettings['toolSchemas'];
  auth: AuthEngine;
  /** A tool's family when it names none: its provider's id. */
  providerOf(name: string): string | undefined;
  loader: Tool;
}

/** Whether a tool's schema waits for `load_tools` under these settings. */
export function waitsToLoad(tool: Tool, toolSchemas: ContextSettings['toolSchemas']): boolean {
  if (tool.lazy !== undefined) return tool.lazy;
  return toolSchemas === 'compact' && tool.name !== COMMUNICATE_TOOL_NAME;
}

/** The family a tool loads with. */
export function familyOf(tool: Tool, providerOf: (name: string) => string | undefined): string {
  return tool.family ?? providerOf(tool.name) ?? 'programmatic';
}

/**
 * Tools the agent may load: on demand, and not refused outright by a policy
 * (a standing `deny` with no scoped rule that could allow a call). A denied
 * tool is then in no catalogue, no request and no `load_tools` answer.
 */
export function loadableTools(sources: Omit<ToolOfferSources, 'loader'>): LoadableTool[] {
  const loadable: LoadableTool[] = [];
  for (const tool of sources.visible.values()) {
    if (!waitsToLoad(tool, sources.toolSchemas) || deniedOutright(sources, tool)) continue;
    loadable.push({ tool, family: familyOf(tool, sources.providerOf) });
  }
  return loadable;
}

/**
 * Verdicts of `deniedOutright`, per policy engine, agent object and tool: the tool offer is planned at every turn, and
 * a policy evaluation matches globs (bench/agent-loop-step.mjs: ~1 ms a turn). Only policies decide a `deny` (rules and
 * grants only ever allow), and they live in the engine (the workspace's) and the agent object (its own), so a changed
 * policy comes with a new engine or agent object, and a new verdict.
 */
const denials = new WeakMap<AuthEngine, WeakMap<AgentParticipant, WeakMap<Tool, boolean>>>();

/** A standing `deny` with no scoped rule that could allow a call: such a tool is never offered, loaded or run, whatever the profile. */
function deniedOutright(sources: Pick<ToolOfferSources, 'auth' | 'agent'>, tool: Tool): boolean {
  let byAgent = denials.get(sources.auth);
  if (!byAgent) denials.set(sources.auth, (byAgent = new WeakMap()));
  let byTool = byAgent.get(sources.agent);
  if (!byTool) byAgent.set(sources.agent, (byTool = new WeakMap()));
  let denied = byTool.get(tool);
  if (denied === undefined) {
    const standing = sources.auth.summarize(sources.agent, tool);
    denied = standing.mode === 'deny' && !standing.scoped;
    byTool.set(tool, denied);
  }
  return denied;
}

/**
 * Decides which definitions each request carries. With `toolSchemas: 'full'`
 * and no lazy MCP server: every visible tool, whole (as always). Otherwise the
 * tools that wait to load are offered in three ways: loaded (their family or
 * name given to `load_tools`): the full definition; called already in the
 * messages the model is sent (it knows them): the compact one; the rest: a
 * line of the catalogue in `load_tools`' description. The rest of the tools
 * go whole, except under `compact`, where communicate goes compact too.
 */
export function planToolOffer(sources: ToolOfferSources): ToolOffer {
  const loadable = loadableTools(sources);
  const waiting = new Set(loadable.map(({ tool }) => tool.name));
  const always: ToolDefinition[] = [];
  // Sent whole or compact at every step: every visible tool that does not wait to load, unless a policy denies it outright
  // (`deny` is deny by every route: its schema would only invite calls that are refused, and cost tokens each step).
  const offeredAlways = new Map<string, Tool>();
  for (const [name, tool] of sources.visible) {
    if (waiting.has(name) || waitsToLoad(tool, sources.toolSchemas) || deniedOutright(sources, tool)) continue;
    offeredAlways.set(name, tool);
    always.push(sources.toolSchemas === 'compact' && tool.lazy !== false ? compactToolDefinition(tool) : toolDefinition(tool));
  }
  if (loadable.length === 0) {
    return { onDemand: false, loadable, callable: offeredAlways, definitions: () => always, initial: () => always, unloaded: () => false };
  }
  const callable = new Map<string, Tool>(offeredAlways);
  for (const [name, tool] of sources.visible) if (waiting.has(name)) callable.set(name, tool);
  callable.set(sources.loader.name, sources.loader);
  const definitions = (loaded: ReadonlySet<string>, messages: readonly Message[]): ToolDefinition[] => {
    const used = usedTools(messages, waiting);
    const offered = [...always];
    const rest: LoadableTool[] = [];
    for (const entry of loadable) {
      if (loaded.has(entry.tool.name) || loaded.has(entry.family)) offered.push(toolDefinition(entry.tool));
      else if (used.has(entry.tool.name)) offered.push(compactToolDefinition(entry.tool));
      else rest.push(entry);
    }
    if (rest.length > 0) offered.push(loaderDefinition(sources.loader, rest));
    return offered;
  };
  const families = new Map(loadable.map(({ tool, family }) => [tool.name, family]));
  const unloaded = (name: string, loaded: ReadonlySet<string>): boolean =>
    families.has(name) && !loaded.has(name) && !loaded.has(families.get(name)!);
  return { onDemand: true, loadable, callable, definitions, initial: () => definitions(new Set(), []), unloaded };
}

/** Names of the waiting tools the messages call. */
function usedTools(messages: readonly Message[], waiting: ReadonlySet<string>): Set<string> {
  const used = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const block of message.content) if (block.type === 'tool_use' && waiting.has(block.name)) used.add(block.name);
  }
  return used;
}

/** `load_tools` with the catalogue of what is left to load: a line per family, MCP tools each with their line. */
function loaderDefinition(loader: Tool, rest: readonly LoadableTool[]): ToolDefinition {
  const families = new Map<string, Tool[]>();
  for (const { tool, family } of rest) families.set(family, [...(families.get(family) ?? []), tool]);
  const lines = [...families].map(([family, tools]) => catalogueLine(family, tools));
  return Object.assign({}, compactToolDefinition(loader), { description: `${LOAD_TOOLS_DESCRIPTION}\nFamilies:\n${lines.join('\n')}` });
}

/**
 * Errors for calls of tools not loaded yet whose input does not fit: the
 * executor's own error, plus how to get the full schema, so a model that
 * guessed the parameters learns where to read them.
 */
export function loadHints(
  offer: ToolOffer,
  toolUses: readonly ToolUseBlock[],
  loaded: ReadonlySet<string>,
  executor: Pick<ToolExecutor, 'prepare'>,
): Map<string, string> {
  const hints = new Map<string, string>();
  for (const toolUse of toolUses) {
    if (!offer.unloaded(toolUse.name, loaded)) continue;
    const prepared = executor.prepare(toolUse, offer.callable);
    if (!prepared.ok)
      hints.set(
        toolUse.id,
        `${prepared.error} Its full schema is not loaded: load_tools { "names": ["${toolUse.name}"] } sends it with your next step.`,
      );
  }
  return hints;
}
