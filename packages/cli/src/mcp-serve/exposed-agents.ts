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

/** The MCP tool that asks this agent. */
export function askToolName(agentId: string): string {
  return `ask_${agentId}`;
}
