import { Markdown, getCapabilities, setCapabilities, type MarkdownTheme } from '@mariozechner/pi-tui';
import { Lexer, type Tokens } from 'marked';
import type { Style } from './style.js';
import { inert, terminalSafe } from './terminal-text.js';

/**
 * A model's markdown as terminal lines at most `width` columns wide: headings,
 * emphasis, lists, block quotes, links with their address, code blocks under a
 * line naming their language, tables whose cells wrap to fit.
 *
 * pi-tui's `Markdown` (marked's lexer underneath) does the layout; Legion gives
 * it its own styles. The text is made inert before it is parsed, so every
 * character of the model's (a link's address, a code block's language, a table
 * cell) is printable text by then, and the result passes `terminalSafe`, so the
 * only escape sequences that go out are Legion's colours.
 */
export function markdownLines(text: string, width: number, style: Style): string[] {
  // An OSC 8 hyperlink would carry the model's address inside an escape sequence: the address is printed instead.
  if (getCapabilities().hyperlinks) setCapabilities({ ...getCapabilities(), hyperlinks: false });
  const lines = new Markdown(inert(text), 0, 0, themeFor(style)).render(Math.max(1, width));
  return lines.map((line) => terminalSafe(trimPadding(line)));
}

/** The code of a reply's fenced or indented code blocks, in order, with each block's language (the model's text, as written). */
export function codeBlocks(text: string): Array<{ code: string; language: string }> {
  const blocks: Array<{ code: string; language: string }> = [];
  const visit = (tokens: readonly { type: string }[]): void => {
    for (const token of tokens) {
      if (token.type === 'code') {
        const code = token as Tokens.Code;
        blocks.push({ code: code.text, language: code.lang ?? '' });
      } else if ('tokens' in token && Array.isArray(token.tokens)) visit(token.tokens as { type: string }[]);
      if (token.type === 'list') for (const item of (token as Tokens.List).items) visit(item.tokens);
    }
  };
  visit(new Lexer().lex(text));
  return blocks;
}

/** A theme for one rendering: it counts fences, which come in pairs, to tell an opening one from a closing one. */
function themeFor(style: Style): MarkdownTheme {
  const plain = (text: string): string => text;
  let inBlock = false;
  return {
    heading: (text) => style.cyan(text),
    link: (text) => style.cyan(text),
    linkUrl: (text) => style.dim(text),
    code: (text) => style.yellow(text),
    codeBlock: plain,
    // pi-tui draws the fences as "```lang" and "```": a frame with the language reads as a frame, not as markup.
    codeBlockBorder: (text) => {
      inBlock = !inBlock;
      const language = text.replace(/^```/, '');
      return style.dim(inBlock ? `╭─${language ? ` ${language}` : ''}` : '╰─');
    },
    quote: plain,
    quoteBorder: (text) => style.dim(text),
    hr: (text) => style.dim(text),
    // pi-tui finds a nested list by the cyan of its bullets: they are cyan here too.
    listBullet: (text) => style.cyan(text),
    bold: (text) => style.bold(text),
    italic: (text) => style.italic(text),
    strikethrough: (text) => style.dim(text),
    underline: (text) => style.underline(text),
  };
}

/** pi-tui pads each line to the width; the spaces are only bytes on the wire, and a copied line would carry them. */
function trimPadding(line: string): string {
  return line.replace(/ +((?:\x1b\[[0-9;]*m)*)$/, '$1');
}
