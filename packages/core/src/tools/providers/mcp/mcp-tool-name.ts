import { createHash } from 'node:crypto';

export const MCP_TOOL_PREFIX = 'mcp__';

/** Model APIs accept tool names of at most this many characters. */
const MAX_TOOL_NAME = 64;

/**
 * `mcp__<server>__<tool>`, in the character set model APIs accept. MCP allows
 * dots and longer names; those are replaced or shortened with a hash of the
 * original, so that the name stays stable from one start to the next.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `${MCP_TOOL_PREFIX}${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  if (name.length <= MAX_TOOL_NAME) return name;
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}

/** The family a server's tools are loaded with on demand (`load_tools`): `mcp__<server>`, the prefix of their names. */
export function mcpFamily(server: string): string {
  return `${MCP_TOOL_PREFIX}${server}`;
}
