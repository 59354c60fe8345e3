/**
 * The session contract: what a turn needs and returns (`turn.ts`), what tools read of a session
 * (`SessionHistory`), conversation ids, delegation frames and message work.
 *
 * This file is the area's one entry: code outside `session/` imports from here, never from a file of
 * it (`npm run lint`, rule `session-through-its-index`; tests excepted). Files inside the area import
 * each other directly, never through this file (that would make cycles). It exports what other
 * areas and core's entries use, and nothing more.
 */

export { conversationId, parseConversationId } from './conversation-id.js';
export type { ConversationKey } from './conversation-id.js';
export type { ClaimCaller, SessionFileClaims, TurnClaimHooks, WriteClaimOutcome } from './file-claims.js';
export type { EditorFiles } from './editor-files.js';
export { framesOfTurn, waitingParticipants } from './delegation-stack.js';
export { MessageWork, delegationOf, treeOf } from './message-work.js';
export type { SessionHistory } from './session-history.js';
export { giveBackController, takeController } from './spare-controllers.js';
export type {
  AnswerOutcome,
  CompactOutcome,
  ParticipantRuntime,
  PausedOnApprovals,
  QuestionAnswerOutcome,
  ResumeOutcome,
  RuntimeOutcome,
  RuntimeResolver,
  SendRequest,
  ToolSession,
  TurnContext,
  TurnConversation,
  TurnResult,
} from './turn.js';
