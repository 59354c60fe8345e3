import type { ParticipantInput, ScriptEntry } from '@legion-collective/core';

export const DEMO_REQUEST = 'Our /health endpoint should report the app version. Can the team take care of it?';

export const DEMO_FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'demo-service', version: '1.4.2', type: 'module' }, null, 2)}\n`,
  'src/health.js': [
    'const startedAt = Date.now();',
    '',
    'export function health() {',
    "  return { status: 'ok', uptimeMs: Date.now() - startedAt };",
    '}',
    '',
  ].join('\n'),
};

export const DEMO_PARTICIPANTS: ParticipantInput[] = [
  { id: 'user', type: 'user', name: 'You', medium: 'demo', description: 'The human watching the demo.' },
  {
    id: 'coordinator',
    type: 'agent',
    name: 'Coordinator',
    description: 'Entry agent: plans and delegates.',
    useFor: 'Anything the user asks.',
    systemPrompt: 'You coordinate the team and answer the user.',
    model: { provider: 'scripted', model: 'demo-coordinator' },
    // A scripted model has no window of its own: named, so the demo does not say it guessed one.
    context: { window: 32_768 },
  },
  {
    id: 'developer',
    type: 'agent',
    name: 'Developer',
    description: 'Writes and changes code.',
    useFor: 'Implementing and explaining code changes.',
    systemPrompt: 'You are a senior developer.',
    model: { provider: 'scripted', model: 'demo-developer' },
    // A scripted model has no window of its own: named, so the demo does not say it guessed one.
    context: { window: 32_768 },
    delegation: ['reviewer'],
  },
  {
    id: 'reviewer',
    type: 'mock',
    name: 'Reviewer',
    description: 'A scripted reviewer (a mock participant: answers by trigger, no model).',
    useFor: 'Reviewing a proposed change.',
    responses: [
      {
        trigger: 'review',
        response: 'Looks right. Read the version once at start-up rather than on every request, and add a test that checks the new field.',
      },
    ],
    fallback: 'I only review changes; send me one to review.',
  },
];

/** What each scripted agent "thinks", step by step. `pace` slows it down to watch. */
export function demoScripts(pace: number): Record<string, ScriptEntry[]> {
  return {
    coordinator: [
      {
        delayMs: pace,
        text: 'I will ask the developer to look at the health handler.',
        toolCalls: [
          {
            name: 'communicate',
            input: {
              to: 'developer',
              message:
                'Please look at src/health.js and propose how /health can report the app version. Have the reviewer check your proposal.',
            },
          },
        ],
      },
      {
        delayMs: pace,
        text: [
          'Here is the plan for /health:',
          '- read `version` from package.json once at start-up (it is 1.4.2 today);',
          "- return `{ status: 'ok', uptimeMs, version }` from `health()` in src/health.js;",
          '- add a test for the new field, as the reviewer asked.',
          'Shall the developer go ahead?',
        ].join('\n'),
      },
    ],
    developer: [
      { delayMs: pace, toolCalls: [{ name: 'file_read', input: { path: 'src/health.js' } }] },
      { delayMs: pace, toolCalls: [{ name: 'file_read', input: { path: 'package.json' } }] },
      {
        delayMs: pace,
        text: 'health() returns status and uptime; package.json has version 1.4.2. Asking for a review.',
        toolCalls: [
          {
            name: 'communicate',
            input: {
              to: 'reviewer',
              message:
                "Please review: import the version from package.json in src/health.js and return { status: 'ok', uptimeMs, version } from health().",
            },
          },
        ],
      },
      {
        delayMs: pace,
        text: 'Proposal: read the version (1.4.2) from package.json once at start-up and add it to what health() returns. The reviewer agreed and asked for a test of the new field.',
      },
    ],
  };
}
