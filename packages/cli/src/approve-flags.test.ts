import { ALWAYS_DEPRECATION, approveChoiceOf } from './approve-flags.js';

describe('the remember flags of legion approve and /approve', () => {
  it('names the vocabulary choice: none is once, --this-session the session, --rule or --pattern a rule', () => {
    expect(approveChoiceOf({})).toEqual({ ok: true, choice: 'once' });
    expect(approveChoiceOf({ thisSession: true })).toEqual({ ok: true, choice: 'session' });
    expect(approveChoiceOf({ rule: true })).toEqual({ ok: true, choice: 'always' });
    expect(approveChoiceOf({ pattern: 'git status*' })).toEqual({ ok: true, choice: 'always', pattern: 'git status*' });
  });

  it('keeps --always to the session, never a rule, and says it is deprecated', () => {
    expect(approveChoiceOf({ always: true })).toEqual({ ok: true, choice: 'session', deprecation: ALWAYS_DEPRECATION });
  });

  it('refuses a session and a rule at once, naming the flags given', () => {
    expect(approveChoiceOf({ thisSession: true, rule: true })).toEqual({
      ok: false,
      error: expect.stringMatching(/^--this-session and --rule/),
    });
    expect(approveChoiceOf({ always: true, pattern: 'x' })).toEqual({
      ok: false,
      error: expect.stringMatching(/^--always \(this session\) and --rule/),
    });
  });
});
