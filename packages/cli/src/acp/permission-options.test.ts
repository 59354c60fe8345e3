import { APPROVAL_CHOICES } from '@legion-collective/core';
import { choiceOfOutcome, permissionOptions } from './permission-options.js';

describe('permission options', () => {
  it("offer core's four choices, in its order and with its words", () => {
    const options = permissionOptions();
    expect(options.map((option) => option.optionId)).toEqual(APPROVAL_CHOICES.map((words) => words.choice));
    expect(options[0]).toEqual({ optionId: 'once', name: 'Approve once (this call only)', kind: 'allow_once' });
    expect(options.map((option) => option.kind)).toEqual(['allow_once', 'allow_always', 'allow_always', 'reject_once']);
  });

  it('read a selected option as its choice; a cancelled request or an unknown option decides nothing', () => {
    expect(choiceOfOutcome({ outcome: 'selected', optionId: 'session' })).toBe('session');
    expect(choiceOfOutcome({ outcome: 'selected', optionId: 'yes-please' })).toBeUndefined();
    expect(choiceOfOutcome({ outcome: 'cancelled' })).toBeUndefined();
  });
});
