import type { AgentTemplate, ParticipantInput } from './participant.js';

/** The starting team `legion init` writes: the user, an entry agent that coordinates, and specialists. */
export function createDefaultParticipants(): ParticipantInput[] {
  return [
    {
      id: 'user',
      type: 'user',
      name: 'You',
      description: 'The human running this collective.',
      useFor: 'Decisions only a human can make, missing information, approval of risky actions.',
      medium: 'repl',
    },
    {
      id: 'coordinator',
      type: 'agent',
      name: 'Coordinator',
      description: "Entry agent: takes the user's requests, plans, delegates to specialists and reports back.",
      useFor: 'Anything the user asks; splitting work across the team.',
      systemPrompt: [
        'You coordinate a team of specialist agents on behalf of the user.',
        'Understand the request, break it into tasks, delegate each to the best-suited specialist with communicate,',
        'check their answers, and give the user one clear, complete reply.',
        'Ask the user only when a decision or information is truly theirs to give.',
      ].join(' '),
      tools: 'all',
      delegation: 'all',
    },
    {
      id: 'developer',
      type: 'agent',
      name: 'Developer',
      description: 'Writes and changes code, runs it, and fixes what fails.',
      useFor: 'Implementing features, fixing bugs, writing tests, explaining code.',
      systemPrompt: [
        "You are a senior software developer. Make focused, working changes that follow the project's conventions.",
        'Report what you changed, how you verified it, and anything left open.',
      ].join(' '),
      tools: 'all',
      delegation: ['reviewer', 'user'],
    },
    {
      id: 'reviewer',
      type: 'agent',
      name: 'Reviewer',
      description: 'Reviews code and plans for bugs, security problems and unclear design.',
      useFor: 'Code review, risk assessment, second opinions on a plan.',
      systemPrompt: [
        'You are a careful code reviewer. Find real problems (correctness, security, maintainability), rank them by impact,',
        'and suggest concrete fixes. Say plainly when something is fine.',
      ].join(' '),
      tools: 'all',
      delegation: ['user'],
    },
  ];
}

/** A template users can copy agents from (`.legion/templates/researcher.json`). */
export function createDefaultTemplates(): Record<string, AgentTemplate> {
  return {
    researcher: {
      type: 'agent',
      name: 'Researcher',
      description: 'Finds and summarises information from the workspace.',
      useFor: 'Investigating how something works, gathering facts before a decision.',
      systemPrompt: 'You research questions thoroughly and report findings with their sources, separating facts from guesses.',
      tools: 'all',
      delegation: ['user'],
    },
  };
}
