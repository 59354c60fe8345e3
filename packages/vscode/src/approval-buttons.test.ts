import { approvalButtons, choiceOfTitle } from './approval-buttons.js';

describe('the approval buttons of the chat and the dialogs', () => {
  it("are core's four choices, in its words, the rejection asking for a reason", () => {
    expect(approvalButtons()).toEqual([
      { choice: 'once', title: 'Approve once' },
      { choice: 'session', title: 'Approve for this session' },
      { choice: 'always', title: 'Approve always' },
      { choice: 'reject', title: 'Reject…' },
    ]);
    expect(choiceOfTitle('Approve for this session')).toBe('session');
    expect(choiceOfTitle('Reject…')).toBe('reject');
    expect(choiceOfTitle(undefined)).toBeUndefined();
  });
});
