import { CardView } from './card-view.js';

const card = (lines: number): string => Array.from({ length: lines }, (_, index) => `line ${index + 1}`).join('\n');
const trimmed = (lines: string[]): string[] => lines.map((line) => line.trimEnd());

describe('a card within the terminal', () => {
  it('shows a card that fits whole, and has nothing clipped', () => {
    const view = new CardView(
      () => 20,
      () => 5,
    );
    view.setText(card(15));
    expect(trimmed(view.render(80))).toEqual(card(15).split('\n'));
    expect(view.clipped).toBeUndefined();
  });

  it('a taller one: its first lines, how many are hidden, its last two; the whole text for Ctrl-O', () => {
    const view = new CardView(
      () => 20,
      () => 5,
    );
    view.setText(card(40), 2);
    const shown = trimmed(view.render(80));
    expect(shown).toHaveLength(15);
    expect(shown.slice(0, 12)).toEqual(card(12).split('\n'));
    expect(shown[12]).toContain('… 26 more lines of this card: Ctrl-O prints it whole above');
    expect(shown.slice(13)).toEqual(['line 39', 'line 40']);
    expect(view.clipped).toBe(card(40));
    // Lines that wrap count as the rows they take.
    view.setText(`${'word '.repeat(40)}\n${card(3)}`);
    expect(view.render(20)).toHaveLength(13);
    expect(view.clipped).toBeUndefined();
  });

  it('on a terminal with no room left it still says what it is and how to answer', () => {
    const view = new CardView(
      () => 6,
      () => 10,
    );
    view.setText(card(10), 2);
    expect(trimmed(view.render(80))).toEqual(['line 1', expect.stringContaining('7 more lines'), 'line 9', 'line 10']);
  });

  it('keeps as many of its last lines as the card asks: a whole menu of choices stays on screen', () => {
    const view = new CardView(
      () => 20,
      () => 5,
    );
    view.setText(card(40), 5);
    const shown = trimmed(view.render(80));
    expect(shown).toHaveLength(15);
    expect(shown[9]).toContain('… 26 more lines of this card');
    expect(shown.slice(10)).toEqual(['line 36', 'line 37', 'line 38', 'line 39', 'line 40']);
  });

  it('keeps its last lines whole when they wrap on a narrow terminal: no row of the menu is lost', () => {
    const view = new CardView(
      () => 20,
      () => 5,
    );
    const menu = ['1. Approve once, a choice long enough to wrap', '2. Approve for this session, as long', 'choose, then Enter'];
    view.setText(`${card(40)}\n${menu.join('\n')}`, menu.length);
    const shown = trimmed(view.render(24));
    expect(shown).toHaveLength(15);
    expect(shown.join(' ').replace(/ +/g, ' ')).toContain(menu.join(' '));
    expect(shown.join('\n')).toContain('32 more lines of');
  });
});
