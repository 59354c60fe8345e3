import { LegionError, type Legion, type Participant } from '@legion-collective/core';

/** The agents an MCP client may ask (`mcpServe.expose`): the entry agent unless the config says `"all"` or lists ids. */
export function exposedAgents(legion: Legion): Participant[] {
  const { expose } = legion.config.mcpServe;
  const agents = legion.collective.agents();
  if (expose === undefined) return agents.length > 0 ? [legion.collective.require(legion.entryAgentId())] : [];
  if (expose === 'all') return agents;
  return expose.map((id) => {
    const participant = legion.collective.get(id);
    if (participant?.type === 'agent' && participant.status === 'active') return participant;
    throw new LegionError(
      'config',
      `.legion/config.json: mcpServe.expose: "${id}" is not an active agent of the collective. Fix: list agents from ${agents.map((agent) => agent.id).join(', ') || '(none)'}, or use "all".`,
    );
  });
}

/**
 * Who a protocol server's requests come from (`mcpServe.caller`, a user) and the agents it offers:
 * what `legion mcp serve` and `legion a2a serve` both check before they listen, with the fix.
 */
export function servedCallerAndAgents(legion: Legion, protocol: 'MCP' | 'A2A'): { caller: Participant; exposed: Participant[] } {
  const caller = legion.mcpCaller();
  if (caller.type !== 'user')
    throw new LegionError(
      'config',
      `.legion/config.json: mcpServe.caller.id: "${caller.id}" is a ${caller.type} of the roster; ${protocol} requests come from a user. Fix: choose another id (default "mcp").`,
    );
  const exposed = exposedAgents(legion);
  if (exposed.length === 0)
    throw new LegionError(
      'config',
      `The collective has no active agent to offer: add one (legion agents add) before serving it over ${protocol}.`,
    );
  return { caller, exposed };
}

/** The MCP tool that asks this agent. */
export function askToolName(agentId: string): string {
  return `ask_${agentId}`;
}
