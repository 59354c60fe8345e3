import { ApprovalMenu } from './approval-menu.js';

const ENTER = '\r';
const UP = '\x1b[A';
const DOWN = '\x1b[B';
/** The menu's lines without colours (FORCE_COLOR may be set where the tests run). */
const plain = (menu: ApprovalMenu, inputHoldsText: boolean): string[] =>
  menu.lines(inputHoldsText).map((line) => line.replace(/\x1b\[[0-9;]*m/g, ''));

describe("an approval card's menu", () => {
  it('decides only on Enter after a choice: a digit or the arrows choose, a letter is not its key', () => {
    const menu = new ApprovalMenu(() => undefined);
    expect(menu.key(ENTER)).toEqual({ kind: 'moved' });
    expect(plain(menu, false).at(-1)).toContain('choose first: ↑/↓ or 1–4, then Enter');
    for (const letter of ['y', 's', 'a', 'n']) expect(menu.key(letter), letter).toEqual({ kind: 'ignored' });
    expect(menu.key('5')).toEqual({ kind: 'ignored' });
    expect(menu.key('3')).toEqual({ kind: 'moved' });
    expect(plain(menu, false)[2]).toContain('❯ 3. Approve always');
    expect(menu.key(ENTER)).toEqual({ kind: 'chosen', choice: 'always' });
    const arrows = new ApprovalMenu(() => undefined);
    arrows.key(UP);
    expect(arrows.key(ENTER)).toEqual({ kind: 'chosen', choice: 'reject' });
    arrows.key(DOWN);
    expect(arrows.key(ENTER)).toEqual({ kind: 'chosen', choice: 'once' });
    arrows.key(DOWN);
    expect(arrows.key(ENTER)).toEqual({ kind: 'chosen', choice: 'session' });
  });

  it("lists core's choices in order, says why 'always' is not offered, and says when the input holds text", () => {
    const menu = new ApprovalMenu(() => 'a compound command');
    const lines = plain(menu, true);
    expect(lines[0]).toMatch(/ 1\. Approve once +this call only$/);
    expect(lines[1]).toMatch(/ 2\. Approve for this session +this agent, this tool, until the session ends$/);
    expect(lines[2]).toMatch(/ 3\. Approve always /);
    expect(lines[3]).toMatch(/ 4\. Reject +with a reason, told to the agent$/);
    expect(lines[2]).toContain('no rule can approve this call: a compound command');
    expect(lines[4]).toContain('the input holds text: the card takes no keys until it is empty');
  });
});
