import { MCP_TOOL_PREFIX } from '../../providers/mcp/mcp-tool-name.js';
import { toolSummary, type Tool } from '../../tool.js';
import { BUILTIN_FAMILY_SUMMARIES } from '../builtin-summaries.js';

/**
 * One family's line in `load_tools`' catalogue. A built-in family is its
 * purpose and its tools' names (the names say enough to pick a family); an
 * MCP server lists each tool with its one line, since the model knows nothing
 * else of a server's tools.
 */
export function catalogueLine(family: string, tools: ReadonlyArray<Pick<Tool, 'name' | 'description' | 'summary'>>): string {
  if (family.startsWith(MCP_TOOL_PREFIX)) {
    const prefix = `${family}__`;
    const listed = tools.map(
      (tool) => `${tool.name.startsWith(prefix) ? tool.name.slice(prefix.length) : tool.name} (${toolSummary(tool)})`,
    );
    return `- ${family} (MCP server; tools ${prefix}<name>): ${listed.join('; ')}`;
  }
  const summary = BUILTIN_FAMILY_SUMMARIES[family];
  return `- ${family}${summary ? `: ${summary}` : ''}: ${tools.map((tool) => tool.name).join(', ')}`;
}
