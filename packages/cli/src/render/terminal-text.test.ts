import { inert, inertLine, terminalSafe } from './terminal-text.js';
import { approvalInputLines } from './approval-input.js';
import { styleFor } from './style.js';

const ESC = '\x1b';
/** Every character a terminal acts on, or that hides or reorders text: none may survive. */
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/u;

describe('inert: text from outside made visible, never acted on', () => {
  it('shows a lone CR, ESC and every other C0, C1 and DEL; keeps new lines and tabs as layout', () => {
    expect(inert('touch PWN1 #\r  command: echo harmless')).toBe('touch PWN1 #␍  command: echo harmless');
    expect(inert(`${ESC}[2K${ESC}[Gx`)).toBe('\\x1b[2K\\x1b[Gx');
    expect(inert(`${ESC}]52;c;Y3VybA==\x07`)).toBe('\\x1b]52;c;Y3VybA==\\x07');
    expect(inert('a\u009b2Jb\u007fc\u0000')).toBe('a\\x9b2Jb\\x7fc\\x00');
    expect(inert('one\n\ttwo\r\nthree')).toBe('one\n\ttwo\nthree');
  });

  it('marks bidi overrides and isolates, zero-width and tag characters', () => {
    expect(inert('a\u202eb\u2066c\u200bd\u200de\ufefff\u2060')).toBe('a<U+202E>b<U+2066>c<U+200B>d<U+200D>e<U+FEFF>f<U+2060>');
    expect(inert('x\u{e0041}')).toBe('x<U+E0041>');
  });

  it('inertLine shows new lines and tabs too', () => {
    expect(inertLine('a\nb\tc\r\n')).toBe('a␊b␉c␍␊');
  });

  it('leaves ordinary text, accents, CJK and emoji alone', () => {
    const text = 'Grüße, 世界 👋 — “quotes” ✔';
    expect(inert(text)).toBe(text);
  });

  it('a sequence split across streamed deltas is made visible piece by piece', () => {
    const deltas = [`hello ${ESC}`, ']0;owned', '\x07 and ', `${ESC}[`, '2J', `${ESC}`, '[3J done'];
    const shown = deltas.map((delta) => inert(delta)).join('');
    expect(shown).not.toContain(ESC);
    expect(shown).not.toContain('\x07');
    expect(shown).toBe('hello \\x1b]0;owned\\x07 and \\x1b[2J\\x1b[3J done');
  });

  it('no code point below U+10000 that a terminal acts on survives', () => {
    const survivors: string[] = [];
    for (let code = 0; code < 0x10000; code++) {
      if (ACTIVE.test(inertLine(String.fromCharCode(code)))) survivors.push(`U+${code.toString(16)}`);
    }
    expect(survivors).toEqual([]);
  });
});

describe('terminalSafe: what every terminal writer passes its output through', () => {
  it("keeps Legion's own colours and shows every other escape", () => {
    const style = styleFor({ isTTY: true } as NodeJS.WriteStream);
    // FORCE_COLOR or NO_COLOR in the environment decide; build the colour codes by hand when they are off.
    const red = style.red('x') === 'x' ? `${ESC}[31mx${ESC}[39m` : style.red('x');
    expect(terminalSafe(`${red} reply: ${ESC}]52;c;Y3VybA==${ESC}\\ ${ESC}[8mhidden${ESC}[1A`)).toBe(
      `${red} reply: \\x1b]52;c;Y3VybA==\\x1b\\ \\x1b[8mhidden\\x1b[1A`,
    );
  });

  it('a colour code cannot be assembled from pieces written separately', () => {
    expect(terminalSafe(ESC) + terminalSafe('[31m')).toBe('\\x1b[31m');
  });
});

describe('approvalInputLines: an approval shows the whole input as it will run', () => {
  it('a CR, an erase or a cursor move is shown, and the command is on the line', () => {
    expect(approvalInputLines({ command: 'touch PWN1 #\r  command: echo harmless' })).toEqual([
      '  command: touch PWN1 #␍  command: echo harmless',
    ]);
    expect(approvalInputLines({ command: `touch PWN2 ${ESC}[1A${ESC}[2K` })).toEqual(['  command: touch PWN2 \\x1b[1A\\x1b[2K']);
  });

  it('a long value is whole, never cut', () => {
    const command = `echo ${'a'.repeat(495)}`;
    expect(approvalInputLines({ command }).join('')).toContain(command);
  });

  it("a value's own line breaks are marked and go on under a gutter, so a line cannot pass for another field", () => {
    expect(approvalInputLines({ command: 'rm -rf build\n  command: ls', cwd: 'src' })).toEqual([
      '  command: rm -rf build␊',
      '         │   command: ls',
      '  cwd: src',
    ]);
  });

  it('other values as JSON, names made inert too', () => {
    expect(approvalInputLines({ 'ti\rmeout': 5, args: ['a', 'b'] })).toEqual([
      '  ti␍meout: 5',
      '  args: [',
      '      │   "a",',
      '      │   "b"',
      '      │ ]',
    ]);
  });
});
