import type { ApprovalRule } from './approval-rule.js';
import { rememberOf, type ApprovalAnswer, type ApprovalRequestRecord } from '../store/index.js';

// How an answer becomes an "approve always" rule, shared by those who record decisions (the approval
// gate, answering from a surface) and the rules that make them, below all of them.

/**
 * How a decision makes an "approve always" rule: `prepare` checks the answer
 * against its request before anything is recorded (who may make rules, the
 * pattern) and says what the rule will be; `record` writes it, once its
 * decision has won.
 */
export interface ApprovalRuleRecorder {
  prepare(
    request: ApprovalRequestRecord,
    answer: ApprovalAnswer,
    context: { decidedBy: string; sessionId: string; medium?: string | undefined },
  ): Promise<{ ok: true; rule?: ApprovalRule | undefined } | { ok: false; error: string }>;
  record(rule: ApprovalRule): void;
}

/** The fields a decision record gets from what its answer asked to remember. */
export function rememberedFields(
  answer: ApprovalAnswer,
  rule: ApprovalRule | undefined,
): { always?: true; remember?: 'always'; ruleId?: string; pattern?: string } {
  if (answer.decision !== 'approve') return {};
  if (rule) return { remember: 'always', ruleId: rule.id, ...(rule.pattern !== undefined ? { pattern: rule.pattern } : {}) };
  return rememberOf(answer) === 'session' ? { always: true } : {};
}
