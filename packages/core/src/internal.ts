// `@legion-collective/core/internal`: what Legion's own packages (the CLI, the server, the VS Code
// extension) share beyond the public entries. UNSTABLE: anything here may change or go in any
// release, without notice; do not build on it.

export { FileTooLargeError, NotRegularFileError, readRegularFileSync } from './store/fs/regular-file.js';
export { answerSizeError } from './hitl/index.js';
export { MemorySessionStore } from './store/memory/MemorySessionStore.js';
export { SUMMARY_SYSTEM_MARK } from './model/context/compaction-summary.js';
export { CARRY_OVER_TAG } from './model/context/compaction-carry-over.js';
export { decisionReach, reachesRequest } from './team/collective/approval-authority.js';
export type { DecisionReach } from './team/collective/approval-authority.js';
export { sessionTokens } from './engine/runtime/session-budget.js';
export type { ParticipantRuntime, RuntimeResolver, ToolSession, TurnContext, TurnConversation } from './session/turn.js';
export { waitingParticipants } from './session/delegation-stack.js';
export { conversationId, parseConversationId } from './session/conversation-id.js';
export type { ConversationKey } from './session/conversation-id.js';
export type { AttachedElsewhere } from './store/fs/surface-presence.js';
export { conversationsStartedBy, sessionStartedBy, turnsOpenedBy, WHOLE_LOG } from './tools/builtin/delegation-tree.js';
export type { StartedConversation } from './tools/builtin/delegation-tree.js';
