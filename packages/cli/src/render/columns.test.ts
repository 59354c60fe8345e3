import { columns, displayWidth } from './columns.js';
import { styleFor } from './style.js';

const colourful = styleFor({ isTTY: true } as NodeJS.WriteStream);

describe('columns: aligned as a terminal shows them', () => {
  it('wide characters take two columns, combining marks none, escape codes none', () => {
    expect(displayWidth('世界')).toBe(4);
    expect(displayWidth('👋 hi')).toBe(5);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth(colourful.bold('abc'))).toBe(3);
  });

  it('the next column starts at the same place after CJK, emoji and styled cells', () => {
    const table = columns([
      ['世界', 'one'],
      ['ascii', 'two'],
      ['👋', 'three'],
      [colourful.cyan('styled'), 'four'],
    ]);
    const starts = table.split('\n').map((line) => {
      const text = line.replace(/\x1b\[[0-9;]*m/g, '');
      const at = text.search(/(one|two|three|four)$/);
      return displayWidth(text.slice(0, at));
    });
    expect(new Set(starts)).toEqual(new Set([8]));
  });

  it('a cell past maxWidth is cut by display width', () => {
    expect(columns([['世界世界世界', 'x']], { maxWidth: 5 })).toBe('世界…  x');
  });
});
