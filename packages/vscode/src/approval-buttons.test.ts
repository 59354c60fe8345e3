import { approvalButtons, choiceOfTitle } from './approval-buttons.js';

describe('the approval buttons of the chat and the dialogs', () => {
  it("are core's four choices, in its words and order (the terminal menu's 1–4), the rejection asking for a reason", () => {
    expect(approvalButtons()).toEqual([
      { choice: 'once', title: 'Approve once', tooltip: 'Approve once — this call only' },
      {
        choice: 'session',
        title: 'Approve for this session',
        tooltip: 'Approve for this session — this agent, this tool, until the session ends',
      },
      { choice: 'always', title: 'Approve always', tooltip: 'Approve always — saves a rule: every session, until removed' },
      { choice: 'reject', title: 'Reject…', tooltip: 'Reject… — with a reason, told to the agent' },
    ]);
    expect(choiceOfTitle('Approve for this session')).toBe('session');
    expect(choiceOfTitle('Reject…')).toBe('reject');
    expect(choiceOfTitle(undefined)).toBeUndefined();
  });
});
