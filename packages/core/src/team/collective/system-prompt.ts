import { permits } from './permits.js';
import type { Collective } from './Collective.js';
import type { AgentParticipant, Participant } from './participant.js';

/** The participants an agent may `communicate` with, by its delegation permission. */
export function delegationTargets(agent: AgentParticipant, collective: Collective): Participant[] {
  return collective.list().filter((other) => other.id !== agent.id && permits(agent.delegation, other.id));
}

/**
 * The agent's own prompt, extended with whom it may talk to, what each is
 * for, and the exact ids to use (as Copilot Multi-Agent writes delegation
 * targets into system prompts).
 */
export function buildSystemPrompt(agent: AgentParticipant, collective: Collective): string {
  const targets = delegationTargets(agent, collective);
  if (targets.length === 0) return agent.systemPrompt;
  const lines = targets.map((target) => {
    const purpose = target.useFor ?? target.description;
    const kind = target.type === 'user' ? 'a human' : target.type === 'a2a' ? 'a remote agent' : target.type;
    return `- ${target.id} (${target.name}, ${kind})${purpose ? `: ${purpose}` : ''}`;
  });
  return [
    agent.systemPrompt,
    '',
    '## Participants you can communicate with',
    `You are ${agent.id}. Use the communicate tool with one of these exact ids as "to":`,
    ...lines,
    '',
    'Each call returns that participant\'s reply. Give a named "conversation" to keep separate threads with the same participant; calls in one response run in parallel.',
  ].join('\n');
}
