import { visibleWidth } from '@mariozechner/pi-tui';
import { stripVTControlCharacters } from 'node:util';
import { markdownLines } from '../render/markdown.js';
import { styleFor } from '../render/style.js';
import { Transcript } from './transcript.js';

const ROWS = 12;
const BELOW = 3;
const WIDTH = 40;
/** What may change from one frame to the next: the live region (streams, then BELOW lines under them). */
const LIVE = ROWS - BELOW - 1;

const lines = (name: string, count: number) => Array.from({ length: count }, (_, index) => `${name} ${index + 1}`);

/** Renders after every delta; checks that a frame never changes a line that has scrolled above the screen. */
function frames(transcript: Transcript, steps: Array<() => void>): string[] {
  let previous: string[] = [];
  for (const step of steps) {
    step();
    const frame = transcript.render(WIDTH);
    // Lines of the previous frame that sat above the screen (the frame plus BELOW lines, ROWS high).
    const scrolledAway = Math.max(0, previous.length + BELOW - ROWS);
    expect(frame.slice(0, scrolledAway)).toEqual(previous.slice(0, scrolledAway));
    previous = frame;
  }
  return previous;
}

describe('Transcript: the streams and what is under them stay within the terminal', () => {
  const make = () =>
    new Transcript(
      () => ROWS,
      () => BELOW,
    );

  it('one stream taller than the terminal hands its first lines to the finished part unchanged, and ends whole', () => {
    const transcript = make();
    transcript.print('before');
    const stream = transcript.open('agent: ');
    const text = lines('line', 30);
    const final = frames(transcript, [...text.map((line) => () => stream.append(`${line}\n`)), () => stream.finish()]);
    expect(final).toEqual(['before', 'agent: line 1', ...text.slice(1), '']);
  });

  it('parallel streams: the first streams on, the others show their last lines; each ends in the scrollback once, whole', () => {
    const transcript = make();
    const first = transcript.open('a: ');
    const second = transcript.open('b: ');
    const steps: Array<() => void> = [];
    for (let index = 1; index <= 20; index += 1) {
      steps.push(
        () => first.append(`a ${index}\n`),
        () => second.append(`b ${index}\n`),
      );
    }
    steps.push(
      () => second.finish(),
      () => first.append('a 21\n'),
      () => transcript.print('a tool line'),
      () => first.append('a 22\n'),
      () => first.finish(),
    );
    const final = frames(transcript, steps);
    for (const name of ['a', 'b']) {
      for (let index = 1; index <= 20; index += 1)
        expect(
          final.filter((line) => line === `${name} ${index}` || line === `${name}: ${name} ${index}`),
          `${name} ${index}`,
        ).toHaveLength(1);
    }
    // The first stream's rest comes after the other stream and the printed line, under a header saying whose it is.
    expect(final.filter((line) => line.includes('(continued)'))).toEqual(['a (continued):']);
    expect(final.indexOf('b: b 1')).toBeLessThan(final.indexOf('a tool line'));
    expect(final.indexOf('a tool line')).toBeLessThan(final.indexOf('a (continued):'));
    expect(final.slice(final.indexOf('a (continued):') + 1).filter((line) => line.startsWith('a '))).toEqual(
      expect.arrayContaining(['a 21', 'a 22']),
    );
  });

  it('a stream below another shows how many of its lines are above, and no more lines than its share', () => {
    const transcript = make();
    const first = transcript.open('a: ');
    const second = transcript.open('b: ');
    first.append('a 1');
    for (let index = 1; index <= 20; index += 1) second.append(`b ${index}\n`);
    const frame = transcript.render(100);
    expect(frame.length).toBeLessThanOrEqual(LIVE);
    expect(frame.some((line) => /^b \(… \d+ lines above, printed in full when it finishes\)$/.test(line))).toBe(true);
  });

  it('a narrow terminal: no line is wider than the terminal (pi-tui stops on one)', () => {
    const transcript = make();
    const first = transcript.open('a-participant-with-a-long-name: ');
    const second = transcript.open('another-participant-with-a-long-name: ');
    for (let index = 1; index <= 20; index += 1) {
      first.append(`a ${index}\n`);
      second.append(`b ${index}\n`);
      transcript.print('a printed line between');
      for (const line of transcript.render(16)) expect(visibleWidth(line), line).toBeLessThanOrEqual(16);
    }
  });

  it('the terminal narrows while a stream goes on: every word of it ends in the scrollback once', () => {
    const transcript = make();
    const stream = transcript.open('agent: ');
    const words = Array.from({ length: 300 }, (_, index) => `w${index + 1}`);
    words.forEach((word, index) => {
      stream.append(`${word} `);
      transcript.render(index < 200 ? WIDTH : 25);
    });
    stream.finish();
    const shown = transcript
      .render(25)
      .join(' ')
      .split(/\s+/)
      .filter((word) => word.startsWith('w'));
    expect(shown).toEqual(words);
  });

  it("a delegate's margin: every line of its stream and of what is printed at its depth starts with it, wrapped lines too, at any width", () => {
    const transcript = make();
    const stream = transcript.open('developer → coordinator: ', '    ');
    stream.append(`${'word '.repeat(30)}\nlast line`);
    for (const line of transcript.render(WIDTH)) expect(line.startsWith('    '), line).toBe(true);
    stream.finish();
    transcript.print(`✓ developer  file_read  ${'a/'.repeat(30)}notes.txt`, '    ');
    for (const width of [WIDTH, 25]) {
      const shown = transcript.render(width);
      for (const line of shown) {
        expect(line.startsWith('    '), line).toBe(true);
        expect(visibleWidth(line), line).toBeLessThanOrEqual(width);
      }
      // Re-wrapped at another width, the margin is not doubled.
      expect(shown.some((line) => line.startsWith('     '))).toBe(false);
      expect(shown.join(' ').replace(/\s+/g, ' ')).toContain('last line');
    }
  });

  it('a delegate deep down on a narrow terminal: its margin takes at most half the width, no line is wider than the terminal', () => {
    const transcript = make();
    const margin = ' '.repeat(24);
    const stream = transcript.open('deep → agent: ', margin);
    stream.append('words that need room to be read');
    transcript.print('a tool line at that depth', margin);
    for (const width of [16, 40]) {
      for (const line of transcript.render(width)) expect(visibleWidth(line), line).toBeLessThanOrEqual(width);
      expect(transcript.render(width).join(' ').replace(/\s+/g, ' ')).toContain('words that need room to be read');
    }
    stream.finish();
    for (const line of transcript.render(16)) expect(visibleWidth(line), line).toBeLessThanOrEqual(16);
  });
});

describe('Transcript with markdown: replies rendered, the same guarantees', () => {
  const style = styleFor({ isTTY: true } as NodeJS.WriteStream);
  const make = () =>
    new Transcript(
      () => ROWS,
      () => BELOW,
      (text, width) => markdownLines(text, width, style),
    );
  const plain = (lines: string[]): string[] => lines.map((line) => stripVTControlCharacters(line));

  it('a reply that starts with a paragraph goes on its header line; one that starts with a heading or a list, under it', () => {
    const transcript = make();
    const paragraph = transcript.open('agent: ');
    paragraph.append('Sure, **hello** there.');
    paragraph.finish();
    transcript.printReply('other: ', '# Title\n\n- one\n- two');
    expect(plain(transcript.render(WIDTH))).toEqual(['agent: Sure, hello there.', 'other:', 'Title', '', '- one', '- two']);
  });

  it('a streamed reply taller than the terminal: each block once, no marker, none changed above the screen', () => {
    const transcript = make();
    const stream = transcript.open('agent: ');
    const blocks = Array.from({ length: 20 }, (_, index) => `Block **${index + 1}** ends.\n\n`);
    const final = frames(transcript, [...blocks.map((block) => () => stream.append(block)), () => stream.finish()]);
    const shown = plain(final);
    for (let index = 1; index <= 20; index += 1) expect(shown.filter((line) => line.endsWith(`Block ${index} ends.`))).toHaveLength(1);
    expect(shown.join('\n')).not.toContain('**');
  });

  it('streamed in small deltas, a reply renders as it does whole: finished blocks are rendered once, alike', () => {
    const reply = [
      'Intro with **bold**.',
      '',
      '## Heading',
      '',
      '- a list',
      '- that is loose',
      '',
      '- still the list',
      '',
      '1. one',
      '',
      '2. two, loose',
      '',
      '10. ten',
      '',
      '```ts',
      'const a = 1;',
      '',
      'const b = 2;',
      '```',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '',
      '> a quote',
      'lazily continued',
      '',
      '    indented code',
      '',
      '    more of it',
      '',
      'Setext heading',
      '---',
      '',
      'The end.',
    ].join('\n');
    const transcript = new Transcript(
      () => 500,
      () => BELOW,
      (text, width) => markdownLines(text, width, style),
    );
    const stream = transcript.open('agent: ');
    for (const character of reply) {
      stream.append(character);
      transcript.render(WIDTH);
    }
    stream.finish();
    const expected = markdownLines(`agent: ${reply}`, WIDTH, style);
    expect(plain(transcript.render(WIDTH))).toEqual(plain(expected));
  });

  it('the terminal narrows while a markdown stream goes on: every block ends in the scrollback once', () => {
    const transcript = make();
    const stream = transcript.open('agent: ');
    const blocks = Array.from({ length: 40 }, (_, index) => `Paragraph ${index + 1} is *here*, with words enough to wrap twice.\n\n`);
    blocks.forEach((block, index) => {
      stream.append(block);
      transcript.render(index < 25 ? WIDTH : 25);
    });
    stream.finish();
    const shown = plain(transcript.render(25)).join(' ');
    for (let index = 1; index <= 40; index += 1) expect(shown.split(`Paragraph ${index} is`).length - 1, `paragraph ${index}`).toBe(1);
  });
});
