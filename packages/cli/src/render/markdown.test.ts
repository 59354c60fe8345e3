import { stripVTControlCharacters } from 'node:util';
import { visibleWidth } from '@mariozechner/pi-tui';
import { codeBlocks, markdownLines } from './markdown.js';
import { styleFor } from './style.js';

const ESC = '\x1b';
/** The escape codes Legion's styles write (bold, dim, italic, underline, the colours, their resets). */
const LEGION_STYLE = /\x1b\[(?:(?:0|[1234]|2[234]|3[12356]|39)(?:;(?:0|[1234]|2[234]|3[12356]|39))*)?m/g;
/** A stream whose style has colours, as a terminal's would. */
const colourful = styleFor({ isTTY: true } as NodeJS.WriteStream);

const REPLY = [
  '# Plan',
  '',
  'Some **bold**, *emphasis* and `code`, and a [link](https://example.com/docs).',
  '',
  '- first',
  '- second',
  '  - nested',
  '',
  '> quoted',
  '',
  '```ts',
  'const answer = 42;',
  '```',
  '',
  '| Name | Description |',
  '|------|-------------|',
  '| alpha | a long cell that has to wrap when the terminal is narrow, and does |',
  '| 世界 | wide |',
].join('\n');

const plain = (lines: string[]): string => stripVTControlCharacters(lines.join('\n'));

describe('markdownLines: a reply as a terminal shows it', () => {
  it('headings, emphasis, lists, quotes, links, code and tables, without their markers', () => {
    const shown = plain(markdownLines(REPLY, 60, colourful));
    for (const marker of ['# Plan', '**', '*emphasis*', '`code`', '](', '```', '|---', '| Name']) expect(shown).not.toContain(marker);
    expect(shown).toContain('Plan');
    expect(shown.replace(/\s+/g, ' ')).toContain('Some bold, emphasis and code, and a link (https://example.com/docs).');
    expect(shown).toMatch(/^- first$/m);
    expect(shown).toMatch(/^ {2}- nested$/m);
    expect(shown).toContain('│ quoted');
    // The code block under a line naming its language, the code as it is.
    expect(shown).toMatch(/^╭─ ts\n {2}const answer = 42;\n╰─$/m);
    expect(shown).toMatch(/│ Name +│ Description +│/);
    expect(shown).toMatch(/│ 世界 +│ wide +│/);
  });

  it('styles with Legion colours only: bold, italic, the heading and the code in theirs', () => {
    const lines = markdownLines(REPLY, 60, colourful);
    const text = lines.join('\n');
    expect(text).toContain(`${ESC}[1mbold${ESC}[22m`);
    expect(text).toContain(`${ESC}[3memphasis${ESC}[23m`);
    expect(text.replace(LEGION_STYLE, '')).not.toContain(ESC);
  });

  it('a table fits the width: cells wrap, every line as wide as the others, none wider than the terminal', () => {
    for (const width of [40, 60, 100]) {
      // The table's lines (a quote's start with │ too, but do not end with it).
      const table = markdownLines(REPLY, width, colourful).filter((line) => /^[┌│├└].*[┐│┤┘]$/.test(stripVTControlCharacters(line)));
      expect(table.length).toBeGreaterThan(6);
      const widths = new Set(table.map((line) => visibleWidth(line)));
      expect(widths.size, `width ${width}`).toBe(1);
      expect([...widths][0]).toBeLessThanOrEqual(width);
    }
    expect(plain(markdownLines(REPLY, 40, colourful))).toMatch(
      // The long cell goes on under itself: a line of the table with its first cell empty.
      /│ alpha │ a long cell [^\n]+│\n│ {7}│ \S[^\n]+│/,
    );
  });

  it("hostile markdown stays inert: escapes in a link's address, a code block's language, a table cell and the text", () => {
    const hostile = [
      `Click [here](https://evil.example/${ESC}]52;c;cHduZWQ=\x07x) or <https://x.example/${ESC}[2J>.`,
      '',
      `\`\`\`sh${ESC}]0;owned\x07`,
      `echo ${ESC}[1A${ESC}[2K`,
      '```',
      '',
      '| a | b |',
      '|---|---|',
      `| ${ESC}[31mred | \u202eevil |`,
      '',
      `*${ESC}[5mblink*`,
    ].join('\n');
    const lines = markdownLines(hostile, 80, colourful);
    const withoutLegion = lines.join('\n').replace(LEGION_STYLE, '');
    expect(withoutLegion).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/u);
    expect(withoutLegion).toContain('https://evil.example/\\x1b]52;c;cHduZWQ=\\x07x');
    expect(withoutLegion).toContain('╭─ sh\\x1b]0;owned\\x07');
    expect(withoutLegion).toContain('echo \\x1b[1A\\x1b[2K');
    expect(withoutLegion).toContain('\\x1b[31mred');
    expect(withoutLegion).toContain('<U+202E>evil');
  });
});

describe('codeBlocks: what /copy puts on the clipboard', () => {
  it('the code of each block, without its fences, with its language, lists included', () => {
    const text = [
      'Intro',
      '',
      '```ts',
      'const a = 1;',
      '  indented();',
      '```',
      '',
      '- item',
      '',
      '  ```',
      '  nested',
      '  ```',
      '',
      'Then',
      '',
      '    four-space code',
    ].join('\n');
    expect(codeBlocks(text)).toEqual([
      { code: 'const a = 1;\n  indented();', language: 'ts' },
      { code: 'nested', language: '' },
      { code: 'four-space code', language: '' },
    ]);
    expect(codeBlocks('no code here')).toEqual([]);
  });
});
