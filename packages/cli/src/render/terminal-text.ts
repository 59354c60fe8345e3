import { styleFor, type Style } from './style.js';

/**
 * Text from outside Legion (a model, a tool, a file, a server, a config a model
 * wrote) made inert for a terminal: every character a terminal would act on
 * instead of print is shown as a visible stand-in, so what is on screen is the
 * text as it is, and nothing in it can move the cursor, erase a line, set the
 * clipboard or the window title, or reorder what is shown.
 *
 * Written by hand rather than taken from a library on purpose: it maps single
 * characters by code point, without parsing escape sequences (strip-ansi,
 * `util.stripVTControlCharacters` remove what they recognise and leave the
 * rest, and remove instead of show). Having no state is the point: a sequence
 * split across two streamed deltas is made visible piece by piece just the same.
 */

/** C0 and C1 controls, DEL, lone surrogates, and characters that are invisible or reorder text (bidi controls, zero-width and other format characters, tag characters). */
const ACTIVE =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]|[\u{e0000}-\u{e007f}]/gu;

/** Stand-ins that read as what they are; other controls are shown as `\xNN`, format characters as `<U+XXXX>`. */
const PICTURES: Record<string, string> = { '\r': '␍', '\n': '␊', '\t': '␉' };

export interface InertOptions {
  /**
   * `layout` (the default): new lines and tabs stay layout, and a CR before a
   * new line is part of that line break; a lone CR is still shown. `visible`:
   * every character is shown, new lines and tabs too, for one-line fields and
   * for text that must be read exactly (what an approval would run).
   */
  readonly whitespace?: 'layout' | 'visible';
}

export function inert(text: string, options: InertOptions = {}): string {
  const layout = options.whitespace !== 'visible';
  const source = layout ? text.replace(/\r\n/g, '\n') : text;
  return source.replace(ACTIVE, (character) => {
    if (layout && (character === '\n' || character === '\t')) return character;
    const picture = PICTURES[character];
    if (picture) return picture;
    const code = character.codePointAt(0)!;
    if (code <= 0x9f) return `\\x${code.toString(16).padStart(2, '0')}`;
    return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}

/** One line: new lines, tabs and every other control shown. */
export function inertLine(text: string): string {
  return inert(text, { whitespace: 'visible' });
}

/**
 * The colours and weights Legion's own styling writes (node:util `styleText`
 * with the formats `render/style.ts` offers, participants' colours among them),
 * alone or combined in one sequence, and the plain reset (pi-tui's line wrapping
 * carries a style over to the next line as one combined sequence): the only
 * escape sequences a terminal writer lets through. None of them moves, hides or
 * erases anything.
 */
const LEGION_STYLE = /\x1b\[(?:(?:0|[1234]|2[234]|3[1-69]|9[456])(?:;(?:0|[1234]|2[234]|3[1-69]|9[456]))*)?m/g;

/**
 * What every terminal writer passes its whole output through, Legion's own
 * styling and all: Legion's colour codes stay, every other control becomes
 * visible. A string that reached a writer without `inert` (a path that forgot)
 * can at worst be coloured; it can no longer move the cursor, erase, hide text
 * or talk to the terminal.
 */
export function terminalSafe(text: string): string {
  let safe = '';
  let last = 0;
  for (const match of text.matchAll(LEGION_STYLE)) {
    safe += inert(text.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return safe + inert(text.slice(last));
}

/**
 * The one way text reaches a terminal outside the REPL's screen: `write`
 * passes everything through `terminalSafe`, so only Legion's own colours go
 * out as escape sequences. `json` is for the JSON outputs (`--json`,
 * `--output json`, stream-json), which stay exact: JSON.stringify escapes every
 * C0 control, and what reads them is a program, not a terminal.
 * `terminal-writers.test.ts` fails the build when a writer goes around this. (In this file, not one of
 * its own: every command loads it, and the bundle keeps it in one chunk with the sanitizer.)
 */
export interface TerminalOut {
  readonly stream: NodeJS.WriteStream;
  readonly style: Style;
  write(text: string): void;
  /** One JSON document and a new line; `indent` pretty-prints it. */
  json(value: unknown, indent?: number): void;
}

export function terminalOut(stream: NodeJS.WriteStream): TerminalOut {
  return {
    stream,
    style: styleFor(stream),
    // The stream's write is looked up at each call: the REPL's screen replaces stderr's while it runs.
    write: (text) => void stream.write(terminalSafe(text)),
    json: (value, indent) => void stream.write(`${JSON.stringify(value, null, indent)}\n`),
  };
}

export const stdout = terminalOut(process.stdout);
export const stderr = terminalOut(process.stderr);
