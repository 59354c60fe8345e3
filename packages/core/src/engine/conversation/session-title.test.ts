import { titleFromMessage } from './session-title.js';

describe('titleFromMessage', () => {
  it('takes the first line that says something, spaces folded', () => {
    expect(titleFromMessage('\n  \n  Fix   the flaky\tlogin test  \nin auth.ts')).toBe('Fix the flaky login test');
    expect(titleFromMessage('---\nWhat can this team do?')).toBe('What can this team do?');
  });

  it('cuts a long line at a word, with an ellipsis', () => {
    const title = titleFromMessage(
      'Please refactor the session catalog so that listing thousands of sessions reads only their metadata files',
    )!;
    expect(title).toBe('Please refactor the session catalog so that listing…');
    expect(title.length).toBeLessThanOrEqual(60);
    expect(titleFromMessage('x'.repeat(100))).toBe(`${'x'.repeat(59)}…`);
  });

  it('gives none for a message without words', () => {
    expect(titleFromMessage('  ?! \n ... ')).toBeUndefined();
  });
});
