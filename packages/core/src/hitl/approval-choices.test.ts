import { ApprovalAnswerSchema } from '../store/records/approval-records.js';
import { APPROVAL_CHOICES, ApprovalChoiceAnswerSchema, answerOfChoice, choiceOfAnswer, choiceOfTyped } from './approval-choices.js';

describe('the one vocabulary of approval answers', () => {
  it('numbers the four choices 1 to 4 in one order with one label each; only a number or a word answers, never a letter', () => {
    expect(APPROVAL_CHOICES.map((words) => [words.number, words.choice, words.label])).toEqual([
      [1, 'once', 'Approve once'],
      [2, 'session', 'Approve for this session'],
      [3, 'always', 'Approve always'],
      [4, 'reject', 'Reject'],
    ]);
    expect(choiceOfTyped('3')).toBe('always');
    expect(choiceOfTyped(' 2 ')).toBe('session');
    expect(choiceOfTyped('Session')).toBe('session');
    expect(choiceOfTyped('yes')).toBe('once');
    expect(choiceOfTyped('no')).toBe('reject');
    expect(choiceOfTyped('reject')).toBe('reject');
    // The letters of the old one-key card: typed text ("sounds good" begins with s) decides nothing.
    for (const letter of ['y', 's', 'a', 'n', 'r']) expect(choiceOfTyped(letter), letter).toBeUndefined();
    expect(choiceOfTyped('5')).toBeUndefined();
    expect(choiceOfTyped('12')).toBeUndefined();
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
