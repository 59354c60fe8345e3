export { ScriptedProvider } from './ScriptedProvider.js';
export type { ScriptEntry, ScriptStep, ScriptedToolCall } from './ScriptedProvider.js';
export { agentParticipant, createTestLegion, mockParticipant, userParticipant } from './test-collective.js';
export type { TestLegion } from './test-collective.js';
