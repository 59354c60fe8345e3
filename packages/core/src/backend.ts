// `@legion-collective/core/backend`: for authors of a session backend (a `SessionBackend` over a
// database or a service, as packages/store-postgres is): the port, its record formats and their
// schemas, the name checks every backend applies, and snapshots (export/import) to move sessions
// between backends. Its contract is tested by `describeSessionBackendContract` (`/testing`).

export { ApprovalRecordSchema, ApprovalDecisionRecordSchema } from './store/index.js';
export type { ApprovalRecord, ApprovalDecisionRecord, ApprovalRequestRecord } from './store/index.js';
export {
  QUESTION_RECORD_VERSION,
  QuestionAnswerRecordSchema,
  QuestionLogRecordSchema,
  QuestionOutcomeRecordSchema,
  QuestionRecordSchema,
  QuestionWithdrawnRecordSchema,
} from './store/index.js';
export type {
  QuestionAnswerRecord,
  QuestionLogRecord,
  QuestionOutcomeRecord,
  QuestionRecord,
  QuestionWithdrawnRecord,
} from './store/index.js';
export { CLAIM_CONFLICT_RECORD_VERSION, ClaimConflictRecordSchema } from './store/index.js';
export type { ClaimConflictRecord } from './store/index.js';
export {
  LogEntrySchema,
  CompactionEntrySchema,
  CONVERSATION_FORMAT_VERSION,
  HeaderEntrySchema,
  MessageEntrySchema,
} from './store/index.js';
export type {
  LogEntry,
  CarriedMessage,
  CompactionEntry,
  CompactionEntryInput,
  CompactionReason,
  HeaderEntry,
  MessageEntry,
  NoteEntry,
} from './store/index.js';
export { UsageRecordSchema } from './store/index.js';
export { FileClaimSchema } from './store/index.js';
export type { FileClaim, FileClaimStore, TakeClaimResult } from './store/index.js';
export type {
  AcquireResult,
  AgentStateKey,
  AgentStateStore,
  AppendableEntry,
  ApprovalLog,
  ArtifactInfo,
  ArtifactStore,
  ConversationAddress,
  ConversationContext,
  ClaimResult,
  ConversationLogs,
  ConversationTally,
  DecideResult,
  Lease,
  LeaseHolder,
  LogCursor,
  MessageHit,
  MessageSearch,
  QuestionLog,
  ConflictLog,
  RecordLog,
  RecordLogFormat,
  RecordLogName,
  RecordReading,
  SessionBackendOptions,
  SessionIndex,
  SessionListing,
  SessionRecords,
  SessionTally,
  SettleResult,
  UsageLog,
} from './store/index.js';
// What the session index splits texts into: every backend indexes and matches the same words.
export { hasEveryWord, searchableText, searchWords } from './store/index.js';
// The record logs of the port, for every backend's one RecordLog implementation.
export { APPROVAL_LOG, CONFLICT_LOG, QUESTION_LOG, USAGE_LOG } from './store/index.js';
export { LeaseLostError } from './store/index.js';
export { SessionMetaSchema, SESSION_FORMAT_VERSION } from './store/index.js';
export { newSessionMeta } from './store/index.js';
export { canonicalJson, exportSession, importSession, summarizeSnapshot } from './store/index.js';
export type { SessionSnapshot, SnapshotSummary } from './store/index.js';
export {
  assertAgentStateKey,
  assertAgentStateKind,
  assertArtifactName,
  assertConversationAddress,
  assertSessionName,
} from './store/index.js';
export { DelegationFrameSchema, type DelegationFrame } from './store/index.js';
export type { SessionMeta } from './store/index.js';
