import type { TokenCounter, ToolDefinition } from '../../model/index.js';
import { compactToolDefinition, toolDefinition, type Tool, LOAD_TOOLS_TOOL_NAME } from '../../tools/index.js';
import type { ToolOffer } from './tool-offer.js';
import type { AgentToolView, AgentToolsView, OnDemandFamily, ToolSchemaTokens } from './tool-views.js';

export function definitionTokens(definitions: readonly ToolDefinition[], count: TokenCounter): number {
  return definitions.reduce((total, definition) => total + count(JSON.stringify(definition)), 0);
}

/** The figures `legion tools list` shows, added to an agent's tool view. */
export function withSchemaTokens(
  view: AgentToolsView,
  offer: ToolOffer,
  usable: ReadonlyMap<string, Tool>,
  toolSchemas: Pick<ToolSchemaTokens, 'toolSchemas' | 'toolSchemasFrom' | 'window'>,
  count: TokenCounter,
): AgentToolsView {
  const families = new Map<string, Tool[]>();
  for (const { tool, family } of offer.loadable) families.set(family, [...(families.get(family) ?? []), tool]);
  const figures = toolSchemaTokens(offer, usable, families, toolSchemas, count);
  const waiting = new Set(offer.loadable.map(({ tool }) => tool.name));
  const sent = new Map(offer.initial().map((definition) => [definition.name, definition]));
  const offered = (tool: Tool): NonNullable<AgentToolView['offered']> => {
    if (waiting.has(tool.name)) return 'on demand';
    const definition = sent.get(tool.name);
    if (!definition) return 'never';
    return definition === compactToolDefinition(tool) ? 'compact' : 'whole';
  };
  const tools = view.tools.map((entry) => {
    const tool = usable.get(entry.name);
    return tool ? Object.assign({}, entry, { schemaTokens: figures.perTool[entry.name] ?? 0, offered: offered(tool) }) : entry;
  });
  return { ...view, tools, schemaTokens: figures };
}

/** An agent's figures: every usable tool whole, what is offered at first, and what each waiting family saves. */
export function toolSchemaTokens(
  offer: ToolOffer,
  usable: ReadonlyMap<string, Tool>,
  families: ReadonlyMap<string, readonly Tool[]>,
  schemas: Pick<ToolSchemaTokens, 'toolSchemas' | 'toolSchemasFrom' | 'window'>,
  count: TokenCounter,
): ToolSchemaTokens {
  const perTool: Record<string, number> = {};
  for (const tool of usable.values()) perTool[tool.name] = count(JSON.stringify(toolDefinition(tool)));
  const initial = offer.initial();
  const offeredTokens = definitionTokens(initial, count);
  const catalogue = initial.find((definition) => definition.name === LOAD_TOOLS_TOOL_NAME);
  const onDemand = [...families].map(([family, tools]): OnDemandFamily => {
    const schemaTokens = tools.reduce((total, tool) => total + (perTool[tool.name] ?? 0), 0);
    // Loading it adds its schemas and takes its line out of the catalogue: the difference is what waiting saves.
    const loaded = definitionTokens(offer.definitions(new Set([family]), []), count);
    return { family, tools: tools.length, schemaTokens, savedTokens: catalogue ? loaded - offeredTokens : 0 };
  });
  return {
    toolSchemas: schemas.toolSchemas,
    toolSchemasFrom: schemas.toolSchemasFrom,
    window: schemas.window,
    fullTokens: definitionTokens([...usable.values()].map(toolDefinition), count),
    compactTokens: definitionTokens([...usable.values()].map(compactToolDefinition), count),
    offeredTokens,
    perTool,
    onDemand,
  };
}
