// `@legion-collective/core/backend`: for authors of a session backend (a `SessionBackend` over a
// database or a service, as packages/store-postgres is): the port, its record formats and their
// schemas, the name checks every backend applies, and snapshots (export/import) to move sessions
// between backends. Its contract is tested by `describeSessionBackendContract` (`/testing`).

export { ApprovalRecordSchema, ApprovalDecisionRecordSchema } from './storage/approval-records.js';
export type { ApprovalRecord, ApprovalDecisionRecord, ApprovalRequestRecord } from './storage/approval-records.js';
export {
  QUESTION_RECORD_VERSION,
  QuestionAnswerRecordSchema,
  QuestionLogRecordSchema,
  QuestionOutcomeRecordSchema,
  QuestionRecordSchema,
  QuestionWithdrawnRecordSchema,
} from './storage/question-records.js';
export type {
  QuestionAnswerRecord,
  QuestionLogRecord,
  QuestionOutcomeRecord,
  QuestionRecord,
  QuestionWithdrawnRecord,
} from './storage/question-records.js';
export {
  LogEntrySchema,
  CompactionEntrySchema,
  CONVERSATION_FORMAT_VERSION,
  HeaderEntrySchema,
  MessageEntrySchema,
} from './storage/log-entry.js';
export type {
  LogEntry,
  CarriedMessage,
  CompactionEntry,
  CompactionEntryInput,
  CompactionReason,
  HeaderEntry,
  MessageEntry,
  NoteEntry,
} from './storage/log-entry.js';
export { UsageRecordSchema } from './storage/usage-summary.js';
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
  ConversationLogs,
  DecideResult,
  Lease,
  LeaseHolder,
  LogCursor,
  QuestionLog,
  SessionBackendOptions,
  SessionListing,
  SessionRecords,
  SettleResult,
  UsageLedgerStore,
} from './storage/backend/session-backend.js';
export { LeaseLostError } from './storage/backend/lease-lost-error.js';
export { SessionMetaSchema, SESSION_FORMAT_VERSION } from './storage/session-meta.js';
export { newSessionMeta } from './storage/backend/new-session-meta.js';
export { canonicalJson, exportSession, importSession, summarizeSnapshot } from './storage/backend/session-snapshot.js';
export type { SessionSnapshot, SnapshotSummary } from './storage/backend/session-snapshot.js';
export {
  assertAgentStateKey,
  assertAgentStateKind,
  assertArtifactName,
  assertConversationAddress,
  assertSessionName,
} from './storage/backend/record-names.js';
export { DelegationFrameSchema, type DelegationFrame } from './storage/delegation-frame.js';
export type { SessionMeta } from './storage/session-meta.js';
