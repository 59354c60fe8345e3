import type { ResolvedConfig } from './config-schema.js';
import type { Collective } from '../collective/Collective.js';

/**
 * The user an MCP client's requests come from (`legion mcp serve`), made from
 * `mcpServe.caller` unless the roster has a participant of that id: a user
 * with its own approval authority (default none) that stands in for the
 * human, so the approvals it may not give go to them.
 */
export function addMcpCaller(collective: Collective, config: ResolvedConfig): void {
  const { id, name, approvalAuthority } = config.mcpServe.caller;
  const human = collective.defaultUser();
  collective.addCaller({
    id,
    type: 'user',
    name,
    description: 'An MCP client (Claude Desktop, Claude Code, an editor, another Legion) asking through legion mcp serve.',
    medium: 'mcp',
    approvalAuthority,
    ...(human && human.id !== id ? { actsFor: human.id } : {}),
  });
}
