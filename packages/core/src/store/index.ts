/**
 * The store area: the file kit (`fs/`), the saved records (`records/`), the `SessionBackend` port and
 * the session's typed stores (`*.ts` here), and each backend with all its internals (`file/`,
 * `memory/`).
 *
 * This file is the area's one entry: code outside `store/` imports from here, never from a file of
 * it (`npm run lint`, rule `store-through-its-index`; tests excepted). Files inside the area import
 * each other directly, never through this file (that would make cycles). It exports what other
 * areas and core's entries use, and nothing more.
 */
export { SessionAgentState } from './SessionAgentState.js';
export { SessionApprovals } from './SessionApprovals.js';
export type { ApprovalState } from './SessionApprovals.js';
export { SessionArtifacts } from './SessionArtifacts.js';
export { SessionQuestions } from './SessionQuestions.js';
export type { QuestionState } from './SessionQuestions.js';
export { FileClaimSchema } from './records/file-claim.js';
export type { FileClaim, FileClaimStore, TakeClaimResult } from './records/file-claim.js';
export { FileSessionBackend } from './file/FileSessionBackend.js';
export type { FileSessionBackendOptions } from './file/FileSessionBackend.js';
export { parseJsonText, readJsonFile, writeJsonAtomic, writeJsonIfAbsent, writeTextAtomic, writeTextIfAbsent } from './fs/atomic-json.js';
export { OpenHandles } from './fs/open-handles.js';
export { ProcessIdentitySchema } from './fs/process-identity-schema.js';
export { currentProcessIdentity, processStartTime, processState } from './fs/process-identity.js';
export type { ProcessIdentity } from './fs/process-identity.js';
export {
  FileTooLargeError,
  NotRegularFileError,
  MAX_READ_BYTES,
  readDescriptor,
  readRegularFileSync,
  specialKind,
} from './fs/regular-file.js';
export { PathMovedError, openInWorkspace, replaceContent } from './fs/safe-open.js';
export { SurfacePresence } from './fs/surface-presence.js';
export type { AttachedElsewhere } from './fs/surface-presence.js';
export { isInside, isLegionInternal, resolveInWorkspace, resolveToolPath, type ResolvedPath } from './fs/workspace-path.js';
export { LEGION_DIR, WorkspacePaths, findWorkspaceRoot } from './fs/workspace-paths.js';
export { LeaseLostError } from './lease-lost-error.js';
export { MemorySessionBackend } from './memory/MemorySessionBackend.js';
export type { MemorySessionBackendOptions } from './memory/MemorySessionBackend.js';
export { MemorySessionStore } from './memory/MemorySessionStore.js';
export { byMostRecent, newSessionMeta } from './new-session-meta.js';
export { APPROVAL_LOG, CONFLICT_LOG, QUESTION_LOG, USAGE_LOG } from './record-log-formats.js';
export { CLAIM_CONFLICT_RECORD_VERSION, ClaimConflictRecordSchema } from './records/claim-conflict-record.js';
export type { ClaimConflictRecord } from './records/claim-conflict-record.js';
export {
  assertAgentStateKey,
  assertAgentStateKind,
  assertArtifactName,
  assertConversationAddress,
  assertSessionName,
} from './record-names.js';
export { APPROVAL_CHOICES, ApprovalChoiceSchema } from './records/approval-choice.js';
export type { ApprovalChoice, ApprovalChoiceWords } from './records/approval-choice.js';
export {
  APPROVAL_REQUEST_VERSION,
  ApprovalAnswerSchema,
  ApprovalDecisionRecordSchema,
  ApprovalRecordSchema,
  rememberOf,
} from './records/approval-records.js';
export type { ApprovalAnswer, ApprovalDecisionRecord, ApprovalRecord, ApprovalRequestRecord } from './records/approval-records.js';
export type { ApprovalView } from './records/approval-view.js';

export { DelegationFrameSchema } from './records/delegation-frame.js';
export type { DelegationFrame } from './records/delegation-frame.js';
export {
  CONVERSATION_FORMAT_VERSION,
  CompactionEntrySchema,
  HeaderEntrySchema,
  LogEntrySchema,
  MessageEntrySchema,
} from './records/log-entry.js';
export type {
  CarriedMessage,
  CompactionEntry,
  CompactionEntryInput,
  CompactionReason,
  HeaderEntry,
  LogEntry,
  MessageEntry,
  NoteEntry,
} from './records/log-entry.js';
export {
  QUESTION_RECORD_VERSION,
  QuestionAnswerRecordSchema,
  QuestionLogRecordSchema,
  QuestionOutcomeRecordSchema,
  QuestionRecordSchema,
  QuestionWithdrawnRecordSchema,
  questionView,
} from './records/question-records.js';
export type {
  QuestionAnswerRecord,
  QuestionLogRecord,
  QuestionOutcomeRecord,
  QuestionRecord,
  QuestionWithdrawnRecord,
} from './records/question-records.js';
export type { QuestionView } from './records/question-view.js';
export type { RecordLogName } from './records/record-log-name.js';
export { SESSION_FORMAT_VERSION, SessionMetaSchema } from './records/session-meta.js';
export type { SessionMeta } from './records/session-meta.js';
export { UsageRecordSchema, addRecord, addUsage, emptySummary, emptyTotals, summarizeUsage } from './records/usage-summary.js';
export type { UsageRecord, UsageSummary } from './records/usage-summary.js';
export type { UsageTotals } from './records/usage-totals.js';
export type {
  AcquireResult,
  AgentStateKey,
  AgentStateStore,
  AppendableEntry,
  ApprovalLog,
  ArtifactInfo,
  ArtifactStore,
  ClaimResult,
  ConflictLog,
  ConversationAddress,
  ConversationContext,
  ConversationLogs,
  ConversationTally,
  DecideResult,
  Lease,
  LeaseHolder,
  LogCursor,
  MessageHit,
  MessageSearch,
  QuestionLog,
  RecordLog,
  RecordLogFormat,
  RecordReading,
  SessionBackend,
  SessionBackendOptions,
  SessionIndex,
  SessionListing,
  SessionRecords,
  SessionTally,
  SettleResult,
  StorageWarning,
  UsageLog,
} from './session-backend.js';
export { hasEveryWord, searchableText, searchWords } from './message-words.js';
export { canonicalJson, exportSession, importSession, summarizeSnapshot } from './session-snapshot.js';
export type { SessionSnapshot, SnapshotSummary } from './session-snapshot.js';
