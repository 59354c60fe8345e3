// The store's zod-only door: the record views every surface shows (approvals, questions, usage
// totals, the approval choices), and nothing that loads a node: module (lint rule
// area-vocabulary-reaches-only-zod). `@legion-collective/core/vocabulary` comes in here, not
// through the area's index, which re-exports the file backend and its node: modules.
export { ApprovalViewSchema } from './records/approval-view.js';
export type { ApprovalView } from './records/approval-view.js';
export { QuestionViewSchema } from './records/question-view.js';
export type { QuestionView } from './records/question-view.js';
export { UsageTotalsSchema } from './records/usage-totals.js';
export type { UsageTotals } from './records/usage-totals.js';
export { APPROVAL_CHOICES, ApprovalChoiceSchema, RememberChoiceSchema } from './records/approval-choice.js';
export type { ApprovalChoice, ApprovalChoiceWords, RememberChoice } from './records/approval-choice.js';
export { FileClaimSchema } from './records/file-claim.js';
export type { FileClaim } from './records/file-claim.js';
export { ClaimConflictRecordSchema } from './records/claim-conflict-record.js';
export type { ClaimConflictRecord } from './records/claim-conflict-record.js';
