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

describe("an approval card's menu on a narrow terminal", () => {
  it('wraps a long reason under itself, every line within the width', () => {
    const why =
      'the command is compound (cd then git push with a pipe), and a rule names one command line; approve it once or in this session instead';
    const menu = new ApprovalMenu(() => why);
    const width = 64;
    const lines = menu.lines(false, width).map((line) => line.replace(/\x1b\[[0-9;]*m/g, ''));
    const always = lines.findIndex((line) => line.includes('3. Approve always'));
    const textColumn = lines[always]!.indexOf('no rule can approve this call');
    expect(textColumn).toBeGreaterThan(10);
    // The reason's other lines start at its first line's column, up to the next choice.
    const continued = lines.slice(
      always + 1,
      lines.findIndex((line) => line.includes('4. ')),
    );
    expect(continued.length).toBeGreaterThan(0);
    for (const line of continued) expect(line.slice(0, textColumn).trim(), line).toBe('');
    expect(continued.join(' ').replace(/\s+/g, ' ')).toContain('approve it once or in this session instead');
    for (const line of lines.slice(0, -1)) expect(line.length, line).toBeLessThanOrEqual(width);
  });
});
