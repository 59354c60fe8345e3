// `@legion-collective/core/internal`: what Legion's own packages (the CLI, the server, the VS Code
// extension) share beyond the public entries. UNSTABLE: anything here may change or go in any
// release, without notice; do not build on it.

export { FileTooLargeError, NotRegularFileError, readRegularFileSync } from './store/index.js';
export { answerSizeError } from './hitl/index.js';
export { MemorySessionStore } from './store/index.js';
export { SUMMARY_SYSTEM_MARK } from './model/index.js';
export { CARRY_OVER_TAG } from './model/index.js';
export { decisionReach, reachesRequest } from './team/index.js';
export type { DecisionReach } from './team/index.js';
export { sessionTokens } from './engine/index.js';
export type { ParticipantRuntime, RuntimeResolver, ToolSession, TurnContext, TurnConversation } from './session/index.js';
export { waitingParticipants } from './session/index.js';
export { conversationId, parseConversationId } from './session/index.js';
// How a search splits and reads messages, for a surface that shows where a hit matched.
export { searchableText, searchWords } from './store/index.js';
export type { ConversationKey } from './session/index.js';
export type { AttachedElsewhere } from './store/index.js';
export { conversationsStartedBy, sessionStartedBy, turnsOpenedBy, WHOLE_LOG } from './tools/index.js';
export type { StartedConversation } from './tools/index.js';
export { FILE_CHANGE_MAX_BYTES, fileChange, fileChangeInEditor } from './hitl/index.js';
export type { FileChange, FileChangeInput } from './hitl/index.js';
