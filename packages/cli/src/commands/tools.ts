import { groupedNumber } from '@legion-collective/core';
import { type AgentToolView, type AgentToolsView, type ToolSchemaTokens } from '@legion-collective/core/management';
import { columns } from '../render/columns.js';
import { styleFor, type Style } from '../render/style.js';
import { openLegion, resolveWorkspace } from '../workspace.js';
import { stdout, stderr, inertLine } from '../render/terminal-text.js';

/**
 * `legion tools list [--agent ID]`: for each agent (or one), the tools its
 * model is shown — where each comes from and what a call needs by policy —
 * and the tools it is not shown, with the reason. Starts the configured MCP
 * servers to list their tools, as an agent's turn would.
 */
export async function toolsListCommand(options: {
  workspace?: string | undefined;
  agent?: string;
  json?: boolean;
  visible?: boolean;
}): Promise<number> {
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  try {
    const agents = options.agent ? [options.agent] : legion.collective.agents().map((agent) => agent.id);
    const views: AgentToolsView[] = [];
    for (const id of agents) views.push(await legion.describeTools(id));
    // Problems found while listing (a broken tool file, a server that failed) are said either way.
    for (const warning of legion.warnings) stderr.write(`warning: ${warning}\n`);
    if (options.json) {
      stdout.json({ agents: views });
      return 0;
    }
    const style = styleFor(process.stdout);
    stdout.write(`${views.map((view) => render(view, style, options.visible === true)).join('\n\n')}\n`);
    return 0;
  } finally {
    await legion.close();
  }
}

function render(view: AgentToolsView, style: Style, visibleOnly: boolean): string {
  const shown = view.tools.filter((tool) => tool.visible);
  const hidden = view.tools.filter((tool) => !tool.visible);
  const lines = [
    `${style.bold(inertLine(view.agent))} ${style.dim(`— its model sees ${shown.length} tool${shown.length === 1 ? '' : 's'}`)}`,
  ];
  const rows = [
    ['TOOL', 'SOURCE', 'APPROVAL', 'SCHEMA'].map(style.dim),
    ...shown.map((tool) => [inertLine(tool.name), inertLine(tool.source), approval(tool, style), schema(tool, style)]),
  ];
  lines.push(indent(columns(rows)));
  if (view.schemaTokens) lines.push(...schemaSummary(view.schemaTokens, style));
  if (!visibleOnly && (hidden.length > 0 || view.missing.length > 0)) {
    lines.push(`  ${style.dim('hidden from its model:')}`);
    const hiddenRows = [
      ...view.missing.map((missing) => [style.red(inertLine(missing.pattern)), inertLine(missing.source), inertLine(missing.reason)]),
      ...hidden.map((tool) => [style.dim(inertLine(tool.name)), inertLine(tool.source), inertLine(tool.hiddenBecause ?? '')]),
    ];
    lines.push(indent(columns(hiddenRows)));
  }
  return lines.join('\n');
}

function approval(tool: AgentToolView, style: Style): string {
  const { mode, source, scoped, reason } = tool.approval;
  const word = mode === 'auto' ? style.green('auto') : mode === 'requires_approval' ? style.yellow('asks') : style.red('denied');
  const origin =
    source === 'default'
      ? style.dim(`(default for ${tool.effect})`)
      : mode === 'deny'
        ? style.dim(`— every call refused: ${inertLine(reason ?? '')}`)
        : style.dim(`(${source})`);
  return `${word} ${origin}${scoped ? style.dim(' + scoped rules') : ''}`;
}

/** Its full schema's tokens, and how it reaches the model. */
function schema(tool: AgentToolView, style: Style): string {
  if (tool.schemaTokens === undefined) return '';
  const how =
    tool.offered === 'whole' || tool.offered === undefined
      ? ''
      : ` ${style.dim(tool.offered === 'never' ? 'never sent (denied)' : tool.offered)}`;
  return `${groupedNumber(tool.schemaTokens)} tokens${how}`;
}

/** Why the schemas go as they do, and what the model is still able to do with those it is not sent whole. */
function schemasWhy(figures: ToolSchemaTokens): string {
  const from =
    figures.toolSchemasFrom === 'config'
      ? 'context.toolSchemas is set in the config'
      : figures.toolSchemasFrom === 'small'
        ? `its window is ${groupedNumber(figures.window)} tokens, so the small profile applies`
        : `its window is ${groupedNumber(figures.window)} tokens, so the cloud profile applies`;
  if (figures.toolSchemas === 'full')
    return `${from}: every schema is sent whole. Set context.toolSchemas to "compact" to load tools on demand.`;
  return `${from}: the model is shown each tool it may use as a line of load_tools' catalogue, loads a family's schemas when it needs them, and a tool it calls before loading still runs. Set context.toolSchemas to "full" to send every schema whole.`;
}

/** What the agent's tool definitions cost a request, and what loading on demand saves. */
function schemaSummary(figures: ToolSchemaTokens, style: Style): string[] {
  const saved = figures.fullTokens - figures.offeredTokens;
  const settings = style.dim(`(toolSchemas "${figures.toolSchemas}")`);
  const lines = [
    saved > 0
      ? `  ${style.dim('tool definitions:')} ${groupedNumber(figures.offeredTokens)} tokens in its first request ${settings}, ${groupedNumber(figures.fullTokens)} with every schema whole: loading on demand saves ${groupedNumber(saved)}`
      : `  ${style.dim('tool definitions:')} ${groupedNumber(figures.offeredTokens)} tokens in every request ${settings}`,
  ];
  for (const family of figures.onDemand) {
    const what = inertLine(family.family.startsWith('mcp__') ? `MCP server ${family.family.slice('mcp__'.length)} (lazy)` : family.family);
    lines.push(
      `    ${style.dim('on demand:')} ${what}: ${family.tools} tool${family.tools === 1 ? '' : 's'}, ${groupedNumber(family.schemaTokens)} tokens of schemas; each request saves ${groupedNumber(family.savedTokens)} until loaded (load_tools)`,
    );
  }
  lines.push(`  ${style.dim('why:')} ${schemasWhy(figures)}`);
  return lines;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
