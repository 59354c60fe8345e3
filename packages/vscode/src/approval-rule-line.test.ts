import { describeSavedRule } from './approval-rule-line.js';

describe('the chat line for a rule "Approve always" made', () => {
  it('names the rule, what it allows and how to list and remove it', () => {
    const line = describeSavedRule({ ruleId: 'rule_abc', requester: 'developer', tool: 'file_write', pattern: 'CHANGELOG.md' });
    expect(line).toContain('`rule_abc`');
    expect(line).toContain('**developer** may run `file_write` on `CHANGELOG.md` without asking');
    expect(line).toContain('`legion approvals rules rm rule_abc`');
  });

  it('says so when the rule has no pattern (a tool without a path or command)', () => {
    expect(describeSavedRule({ ruleId: 'rule_x', requester: 'developer', tool: 'issue_lookup' })).toContain('`issue_lookup` on any call');
  });
});

describe('a pattern the model chose', () => {
  it('stays inside one code span, backticks and all', () => {
    expect(describeSavedRule({ ruleId: 'rule_y', requester: 'developer', tool: 'file_write', pattern: 'a`b.md' })).toContain(
      'on `` a`b.md `` without asking',
    );
  });
});
