import { inert } from '../../cli/src/render/terminal-text.js';
import { visibleText } from './visible-text.js';

describe('visibleText: what VS Code shows of outside text', () => {
  it('shows a CR, ESC, C1 controls, bidi overrides and zero-width characters; keeps new lines and tabs', () => {
    expect(visibleText('touch PWN1 #\r  command: echo harmless')).toBe('touch PWN1 #␍  command: echo harmless');
    expect(visibleText('a\x1b[2K\u009b\u202egnp.exe\u200b\n\tb\r\n')).toBe('a\\x1b[2K\\x9b<U+202E>gnp.exe<U+200B>\n\tb\n');
  });

  it("answers as the terminal's sanitizer does, for every code point", () => {
    const differ: string[] = [];
    const codes = [
      ...Array.from({ length: 0x10000 }, (_, code) => code),
      ...Array.from({ length: 0x100 }, (_, offset) => 0xe0000 + offset),
    ];
    for (const code of codes) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCodePoint(code);
      if (visibleText(character) !== inert(character)) differ.push(`U+${code.toString(16)}`);
    }
    expect(differ).toEqual([]);
  });
});
