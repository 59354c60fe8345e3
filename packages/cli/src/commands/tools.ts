import { Legion, type AgentToolView, type AgentToolsView } from '@legion-collective/core';
import { columns } from '../render/columns.js';
import { styleFor, type Style } from '../render/style.js';
import { resolveWorkspace } from '../workspace.js';

/**
 * `legion tools list [--agent ID]`: for each agent (or one), the tools its
 * model is shown — where each comes from and what a call needs by policy —
 * and the tools it is not shown, with the reason. Starts the configured MCP
 * servers to list their tools, as an agent's turn would.
 */
export async function toolsListCommand(options: { workspace?: string | undefined; agent?: string; json?: boolean; visible?: boolean }): Promise<number> {
  const legion = Legion.open({ root: resolveWorkspace(options.workspace) });
  try {
    const agents = options.agent ? [options.agent] : legion.collective.agents().map((agent) => agent.id);
    const views: AgentToolsView[] = [];
    for (const id of agents) views.push(await legion.describeTools(id));
    // Problems found while listing (a broken tool file, a server that failed) are said either way.
    for (const warning of legion.warnings) process.stderr.write(`warning: ${warning}\n`);
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ agents: views })}\n`);
      return 0;
    }
    const style = styleFor(process.stdout);
    process.stdout.write(`${views.map((view) => render(view, style, options.visible === true)).join('\n\n')}\n`);
    return 0;
  } finally {
    await legion.close();
  }
}


function render(view: AgentToolsView, style: Style, visibleOnly: boolean): string {
  const shown = view.tools.filter((tool) => tool.visible);
  const hidden = view.tools.filter((tool) => !tool.visible);
  const lines = [`${style.bold(view.agent)} ${style.dim(`— its model sees ${shown.length} tool${shown.length === 1 ? '' : 's'}`)}`];
  const rows = [['TOOL', 'SOURCE', 'APPROVAL'].map(style.dim), ...shown.map((tool) => [tool.name, tool.source, approval(tool, style)])];
  lines.push(indent(columns(rows)));
  if (!visibleOnly && (hidden.length > 0 || view.missing.length > 0)) {
    lines.push(`  ${style.dim('hidden from its model:')}`);
    const hiddenRows = [
      ...view.missing.map((missing) => [style.red(missing.pattern), missing.source, missing.reason]),
      ...hidden.map((tool) => [style.dim(tool.name), tool.source, tool.hiddenBecause ?? '']),
    ];
    lines.push(indent(columns(hiddenRows)));
  }
  return lines.join('\n');
}

function approval(tool: AgentToolView, style: Style): string {
  const { mode, source, scoped, reason } = tool.approval;
  const word = mode === 'auto' ? style.green('auto') : mode === 'requires_approval' ? style.yellow('asks') : style.red('denied');
  const origin = source === 'default' ? style.dim(`(default for ${tool.effect})`) : mode === 'deny' ? style.dim(`— every call refused: ${reason}`) : style.dim(`(${source})`);
  return `${word} ${origin}${scoped ? style.dim(' + scoped rules') : ''}`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
