// `@legion-collective/core/backend`: for authors of a session backend (a `SessionBackend` over a
// database or a service, as packages/store-postgres is): the port, its record formats and their
// schemas, the name checks every backend applies, and snapshots (export/import) to move sessions
// between backends. Its contract is tested by `describeSessionBackendContract` (`/testing`).

export { ApprovalRecordSchema, ApprovalDecisionRecordSchema } from './store/records/approval-records.js';
export type { ApprovalRecord, ApprovalDecisionRecord, ApprovalRequestRecord } from './store/records/approval-records.js';
export {
  QUESTION_RECORD_VERSION,
  QuestionAnswerRecordSchema,
  QuestionLogRecordSchema,
  QuestionOutcomeRecordSchema,
  QuestionRecordSchema,
  QuestionWithdrawnRecordSchema,
} from './store/records/question-records.js';
export type {
  QuestionAnswerRecord,
  QuestionLogRecord,
  QuestionOutcomeRecord,
  QuestionRecord,
  QuestionWithdrawnRecord,
} from './store/records/question-records.js';
export {
  LogEntrySchema,
  CompactionEntrySchema,
  CONVERSATION_FORMAT_VERSION,
  HeaderEntrySchema,
  MessageEntrySchema,
} from './store/records/log-entry.js';
export type {
  LogEntry,
  CarriedMessage,
  CompactionEntry,
  CompactionEntryInput,
  CompactionReason,
  HeaderEntry,
  MessageEntry,
  NoteEntry,
} from './store/records/log-entry.js';
export { UsageRecordSchema } from './store/records/usage-summary.js';
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
  DecideResult,
  Lease,
  LeaseHolder,
  LogCursor,
  QuestionLog,
  RecordLog,
  RecordLogFormat,
  RecordLogName,
  RecordReading,
  SessionBackendOptions,
  SessionListing,
  SessionRecords,
  SettleResult,
  UsageLog,
} from './store/session-backend.js';
// The record logs of the port, for every backend's one RecordLog implementation.
export { APPROVAL_LOG, QUESTION_LOG, USAGE_LOG } from './store/record-log-formats.js';
export { LeaseLostError } from './store/lease-lost-error.js';
export { SessionMetaSchema, SESSION_FORMAT_VERSION } from './store/records/session-meta.js';
export { newSessionMeta } from './store/new-session-meta.js';
export { canonicalJson, exportSession, importSession, summarizeSnapshot } from './store/session-snapshot.js';
export type { SessionSnapshot, SnapshotSummary } from './store/session-snapshot.js';
export {
  assertAgentStateKey,
  assertAgentStateKind,
  assertArtifactName,
  assertConversationAddress,
  assertSessionName,
} from './store/record-names.js';
export { DelegationFrameSchema, type DelegationFrame } from './store/records/delegation-frame.js';
export type { SessionMeta } from './store/records/session-meta.js';
