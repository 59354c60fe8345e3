import { ApprovalAnswerSchema } from '../store/records/approval-records.js';
import {
  APPROVAL_CHOICES,
  ApprovalChoiceAnswerSchema,
  answerOfChoice,
  approvalKeyLine,
  choiceOfAnswer,
  choiceOfKey,
} from './approval-choices.js';

describe('the one vocabulary of approval answers', () => {
  it('gives every choice one key and one label, and "a" is always the rule', () => {
    expect(APPROVAL_CHOICES.map((words) => [words.choice, words.key, words.label])).toEqual([
      ['once', 'y', 'Approve once'],
      ['session', 's', 'Approve for this session'],
      ['always', 'a', 'Approve always'],
      ['reject', 'n', 'Reject'],
    ]);
    expect(choiceOfKey('a')).toBe('always');
    expect(choiceOfKey(' S ')).toBe('session');
    expect(choiceOfKey('yes')).toBe('once');
    expect(choiceOfKey('no')).toBe('reject');
    expect(choiceOfKey('reject')).toBe('reject');
    expect(choiceOfKey('r')).toBeUndefined();
    expect(approvalKeyLine()).toBe(
      '[y] approve once  [s] approve for this agent this session  [a] approve always (a rule)  [n] reject with a reason',
    );
    expect(approvalKeyLine(['once', 'session', 'reject'])).toBe(
      '[y] approve once  [s] approve for this agent this session  [n] reject with a reason',
    );
  });

  it('turns a choice into the decision core records, and back', () => {
    expect(answerOfChoice({ id: 'apr_1', choice: 'once' })).toEqual({ id: 'apr_1', decision: 'approve' });
    expect(answerOfChoice({ id: 'apr_1', choice: 'session' })).toEqual({ id: 'apr_1', decision: 'approve', remember: 'session' });
    expect(answerOfChoice({ id: 'apr_1', choice: 'always', pattern: 'git *' })).toEqual({
      id: 'apr_1',
      decision: 'approve',
      remember: 'always',
      pattern: 'git *',
    });
    expect(answerOfChoice({ id: 'apr_1', choice: 'reject', reason: 'not now' })).toEqual({
      id: 'apr_1',
      decision: 'reject',
      reason: 'not now',
    });
    for (const words of APPROVAL_CHOICES) {
      const answer = answerOfChoice({ id: 'apr_1', choice: words.choice });
      expect(ApprovalAnswerSchema.safeParse(answer).success).toBe(true);
      expect(choiceOfAnswer(answer)).toBe(words.choice);
    }
    expect(choiceOfAnswer({ decision: 'approve', always: true })).toBe('session');
  });

  it('refuses an answer outside the vocabulary, naming the field', () => {
    const wrong = ApprovalChoiceAnswerSchema.safeParse({ id: 'apr_1', choice: 'forever' });
    expect(wrong.success).toBe(false);
    expect(wrong.error?.issues[0]?.path).toEqual(['choice']);
    const pattern = ApprovalChoiceAnswerSchema.safeParse({ id: 'apr_1', choice: 'once', pattern: 'git *' });
    expect(pattern.error?.issues[0]?.message).toBe('a pattern belongs to a rule: give it with choice "always"');
  });
});
