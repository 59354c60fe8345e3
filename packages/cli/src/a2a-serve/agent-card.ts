import type { Participant } from '@legion-collective/core';
import { A2A_PROTOCOL_VERSION, type AgentCard } from '@a2a-js/sdk';

/** The name of the bearer scheme in the card's `securitySchemes`. */
const BEARER = 'bearer';

/** Where an exposed agent lives on the server: its JSON-RPC endpoint, with its card at `<path>/.well-known/agent-card.json`. */
export function agentPath(agentId: string): string {
  return `/agents/${encodeURIComponent(agentId)}`;
}

/**
 * An exposed agent as an A2A agent card: its name and description, what to bring it (`useFor`) as
 * its skill, streaming, and the bearer token every request but the card's own must carry.
 */
export function agentCardOf(agent: Participant, options: { baseUrl: string; version: string }): AgentCard {
  const about = agent.description.length > 0 ? agent.description : `${agent.name}, an agent of a Legion collective.`;
  return {
    name: agent.name,
    description: `${about} It may delegate to the other agents of its collective: one task holds the whole delegation tree's work.`,
    version: options.version,
    provider: undefined,
    supportedInterfaces: [
      { url: `${options.baseUrl}${agentPath(agent.id)}`, protocolBinding: 'JSONRPC', protocolVersion: A2A_PROTOCOL_VERSION, tenant: '' },
    ],
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false, extensions: [] },
    securitySchemes: {
      [BEARER]: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            scheme: 'Bearer',
            bearerFormat: '',
            description: 'The access token legion a2a serve printed (or the one given with --token-file / LEGION_A2A_TOKEN).',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { [BEARER]: { list: [] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: agent.id,
        name: agent.name,
        description: agent.useFor ?? about,
        tags: ['legion'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
