export { ScriptedProvider } from '../providers/scripted/ScriptedProvider.js';
export type { ScriptEntry, ScriptStep, ScriptedToolCall } from '../providers/scripted/ScriptedProvider.js';
export { agentParticipant, createTestLegion, mockParticipant, userParticipant } from './test-collective.js';
export type { TestLegion } from './test-collective.js';
export { startWireRecorder } from './wire-recorder.js';
export type { RecordedRequest, WireRecorder } from './wire-recorder.js';
