/**
 * The human-in-the-loop area: everything a participant is asked and how the answer comes back.
 * Approvals (the gate that records and routes a request, deciding, resuming the turns that waited,
 * the approval tools an agent answers with), questions (asking a user, answering, resuming), the
 * "approve always" rules (their files, schema and making), the events each of these emits, and the
 * user surfaces a person answers through (`UserSurfaces`, `UserRuntime`, MCP elicitation, the
 * approval choices a surface offers and the explanation of a pause).
 *
 * This file is the area's one entry: code outside `hitl/` imports from here, never from a file of
 * it (`npm run lint`, rule `hitl-through-its-index`; tests excepted).
 *
 * It sits above authorization (policy decides whether a call asks; the rules it reads are passed
 * in as `StandingApproval`s) and below the engine. Where hitl must call the engine back (finding a
 * conversation's unanswered tool uses, resuming a turn that waited, whether a turn is live) it
 * takes a port the engine's `Session` implements: `AnsweringSession`, `QuestionAnsweringSession`,
 * `AnsweredResumingSession`; it never imports the engine.
 *
 * What it does not hold: the saved shapes of approval and question records
 * (`store/records/approval-records.ts`, `question-records.ts`) and the session's typed views of
 * their logs (`store/SessionApprovals.ts`, `store/SessionQuestions.ts`) stay in the store, below
 * everything, because every backend reads and writes them. Who may approve what
 * (`team/collective/approval-authority.ts`) is the collective's configuration, read by tools too.
 */

// Approvals: the gate, deciding and resuming, the tools an agent answers with, their events.
export { ApprovalGate } from './ApprovalGate.js';
export type { ApprovalCall } from './ApprovalGate.js';
export { answerApprovals } from './answer-approvals.js';
export type { AnsweringSession } from './answer-approvals.js';
export { resumeDecided } from './resume-decided.js';
export { emitApprovalRecord } from './approval-events.js';
export { describeApprovalRequired } from './approval-required.js';
export { createApprovalResponseTool, createListApprovalsTool } from './approval-tools.js';

// Questions: answering, resuming, their events.
export { answerQuestion, answerSizeError } from './answer-question.js';
export type { AnswerQuestionOptions, QuestionAnsweringSession } from './answer-question.js';
export { resumeAnswered } from './resume-answered.js';
export type { AnsweredResumingSession } from './resume-answered.js';
export { emitQuestionRecord } from './question-events.js';

// What a surface offers a person to answer an approval with, and how a pause is explained to them.
export {
  APPROVAL_CHOICES,
  ApprovalChoiceAnswerSchema,
  answerOfChoice,
  approvalChoice,
  choiceOfAnswer,
  choiceOfTyped,
} from './approval-choices.js';
export type { ApprovalChoice, ApprovalChoiceAnswer, ApprovalChoiceWords } from './approval-choices.js';
export { explainPause, explainQuestionPause } from './pause-explanation.js';
export { FILE_CHANGE_MAX_BYTES, fileChange, fileChangeInEditor } from './file-change.js';
export type { FileChange, FileChangeInput } from './file-change.js';
export type { PauseExplanation, QuestionPauseExplanation } from './pause-explanation.js';

// "Approve always" rules.
export { ApprovalRules } from './ApprovalRules.js';
export type { NewApprovalRule } from './ApprovalRules.js';
export { APPROVAL_RULE_VERSION, ApprovalRuleSchema } from './approval-rule.js';
export type { ApprovalRule } from './approval-rule.js';
export type { ApprovalRuleRecorder } from './approval-rule-recorder.js';
export { ApprovalRuleStore, inspectApprovalRuleFiles } from './ApprovalRuleStore.js';

// The user surfaces a person answers through.
export { UserSurfaces } from './UserSurfaces.js';
export type { UserQuestion, UserSurface } from './user-surface.js';
export { UserRuntime } from './UserRuntime.js';
export { askElicitation } from './ask-elicitation.js';
