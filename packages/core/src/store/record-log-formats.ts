import { z } from 'zod';
import { describeZodError } from '../kernel/index.js';
import { migrateRequestV1 } from './records/approval-migration.js';
import {
  ApprovalDecisionRecordSchema,
  StoredApprovalRecordSchema,
  type ApprovalDecisionRecord,
  type ApprovalLinkRecord,
  type ApprovalRequestRecord,
} from './records/approval-records.js';
import {
  QuestionLogRecordSchema,
  QuestionOutcomeRecordSchema,
  type QuestionOutcomeRecord,
  type QuestionRecord,
} from './records/question-records.js';
import { ClaimConflictRecordSchema, type ClaimConflictRecord } from './records/claim-conflict-record.js';
import { UsageRecordSchema, type UsageRecord } from './records/usage-summary.js';
import type { RecordLogFormat, RecordReading } from './session-backend.js';

/** A stored record through a schema: the record, or the problem in words a warning can carry. */
function readWith<T>(schema: z.ZodType<T>, stored: unknown): RecordReading<T> {
  const parsed = schema.safeParse(stored);
  if (parsed.success) return { ok: true, record: parsed.data };
  const { field, problem } = describeZodError(parsed.error, stored);
  return { ok: false, problem: field === '(root)' ? problem : `field "${field}": ${problem}` };
}

/**
 * `approvals`: requests, and one decision per request claimed by its id. Older records are
 * migrated as they are read: a version 1 request takes its frames from the version 1 `link`
 * records written before it, which are themselves read as nothing.
 */
export const APPROVAL_LOG: RecordLogFormat<ApprovalRequestRecord, ApprovalDecisionRecord> = {
  name: 'approvals',
  what: 'approval record',
  wakesFollowers: true,
  reader: () => {
    /** Version 1 link records so far, by the conversation waited on. */
    const linksV1 = new Map<string, ApprovalLinkRecord[]>();
    return (stored) => {
      const read = readWith(StoredApprovalRecordSchema, stored);
      if (!read.ok) return read;
      const record = read.record;
      if (record === undefined) return { ok: true, record };
      if (record.kind === 'link') {
        linksV1.set(record.childConversationId, [...(linksV1.get(record.childConversationId) ?? []), record]);
        return { ok: true, record: undefined };
      }
      if (record.kind === 'request' && record.version === 1)
        return { ok: true, record: migrateRequestV1(record, (child) => linksV1.get(child) ?? []) };
      return { ok: true, record };
    };
  },
  isClaim: (record): record is ApprovalDecisionRecord => record.kind === 'decision',
  claimKey: (decision) => decision.requestId,
  awaitedKey: (record) => (record.kind === 'request' ? record.id : undefined),
  claimSchema: ApprovalDecisionRecordSchema,
  kindOf: (record) => record.kind,
};

/** `questions`: questions, and one outcome (an answer or a withdrawal) per question claimed by its id. */
export const QUESTION_LOG: RecordLogFormat<QuestionRecord, QuestionOutcomeRecord> = {
  name: 'questions',
  what: 'question record',
  wakesFollowers: true,
  reader: () => (stored) => readWith(QuestionLogRecordSchema, stored),
  isClaim: (record): record is QuestionOutcomeRecord => record.kind !== 'question',
  claimKey: (outcome) => outcome.questionId,
  awaitedKey: (record) => (record.kind === 'question' ? record.id : undefined),
  claimSchema: QuestionOutcomeRecordSchema,
  kindOf: (record) => record.kind,
};

/** `usage`: one record per model call; nothing is claimed. */
export const USAGE_LOG: RecordLogFormat<UsageRecord> = {
  name: 'usage',
  what: 'usage record',
  wakesFollowers: false,
  reader: () => (stored) => readWith(UsageRecordSchema, stored),
  isClaim: (_record): _record is never => false,
  // Nothing is a claim here (`never`): there is no key to give.
  claimKey: (claim) => claim,
  awaitedKey: () => undefined,
  claimSchema: z.never(),
  kindOf: () => 'usage',
};

/**
 * `conflicts`: one record per write a file claim refused, in the refused caller's session; nothing
 * is claimed. A log of its own (not the approvals log): an older Legion reads that one whole and
 * would warn at every read about records it cannot parse, while a log it does not know it never opens.
 */
export const CONFLICT_LOG: RecordLogFormat<ClaimConflictRecord> = {
  name: 'conflicts',
  what: 'claim conflict record',
  wakesFollowers: true,
  reader: () => (stored) => readWith(ClaimConflictRecordSchema, stored),
  isClaim: (_record): _record is never => false,
  // Nothing is a claim here (`never`): there is no key to give.
  claimKey: (claim) => claim,
  awaitedKey: () => undefined,
  claimSchema: z.never(),
  kindOf: () => 'conflict',
};
