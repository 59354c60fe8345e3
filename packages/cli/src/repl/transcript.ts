import { truncateToWidth, wrapTextWithAnsi, type Component } from '@mariozechner/pi-tui';
import { Lexer } from 'marked';
import { stripVTControlCharacters } from 'node:util';
import { styleFor } from '../render/style.js';

const style = styleFor(process.stdout);

/**
 * What the REPL has shown: finished lines, appended to and never edited, then
 * the replies still streaming. The renderer can rewrite only what is on the
 * screen; a change to a line that has scrolled up into the scrollback makes it
 * clear the screen and the scrollback and draw everything again. So the
 * streams, with everything below them, are kept no taller than the terminal:
 * the first stream hands the lines that no longer fit to the finished part (on
 * screen they stay where they are: same lines, same order), and the others,
 * which have streams above them, show their last lines under a header saying
 * how many are hidden, and are printed in full when they finish.
 */
export class Transcript implements Component {
  private readonly finished: Chunk[] = [];
  private readonly streams: Stream[] = [];

  /**
   * @param rows the terminal's height now
   * @param below how many lines the live region below the streams takes (card, status, input)
   * @param markdown renders a reply's (inert) markdown at a width; without it replies are shown as written
   */
  constructor(
    private readonly rows: () => number,
    private readonly below: (width: number) => number,
    private readonly markdown?: MarkdownRenderer,
  ) {}

  /** `margin`: put before every line, wrapped ones too (a delegate's work sits under its delegation). */
  print(text: string, margin = ''): void {
    // As pi-tui's Text did: nothing but white space takes no line.
    if (text.trim() !== '') this.finished.push(new Chunk((width) => wrapWithMargin(text, width, margin)));
  }

  /** A finished reply under its header: rendered as markdown (again at each new width), or as written. */
  printReply(header: string, text: string, margin = ''): void {
    const markdown = this.markdown;
    if (!markdown) return this.print(`${header}${text}`, margin);
    this.finished.push(new Chunk(withMargin(margin, (width) => replyLines(header, text, width, markdown))));
  }

  /** A reply that grows as it streams; `finish` prints the rest of it, unchanged, among the finished lines. */
  open(header: string, margin = ''): { append(text: string): void; finish(): void } {
    const stream = new Stream(header, this.markdown, margin);
    this.streams.push(stream);
    return {
      append: (delta) => stream.append(delta),
      finish: () => this.finish(stream),
    };
  }

  /** How many replies are streaming now (each keeps at least a line of the live region). */
  get streamCount(): number {
    return this.streams.length;
  }

  /** Forgets the finished lines (the screen is cleared); what streams stays. */
  clear(): void {
    this.finished.length = 0;
  }

  render(width: number): string[] {
    const live = this.renderStreams(width);
    return [...this.finished.flatMap((chunk) => chunk.render(width)), ...live];
  }

  invalidate(): void {}

  private finish(stream: Stream): void {
    const index = this.streams.indexOf(stream);
    if (index < 0) return;
    this.streams.splice(index, 1);
    const width = stream.lastWidth;
    // Never drawn: rendered when it is, at whatever width the terminal has then.
    if (width === undefined || !stream.handedOver) this.finished.push(new Chunk((at) => stream.lines(at), undefined, stream));
    // The first stream leaves what it shows; another one had lines hidden, now printed whole.
    else
      this.finished.push(
        new Chunk(fixed(index === 0 ? this.firstStreamLines(stream, width).lines : stream.lines(width), stream.margin), width, stream),
      );
  }

  private renderStreams(width: number): string[] {
    if (this.streams.length === 0) return [];
    // One line spare: the renderer keeps the cursor on the last line.
    const room = Math.max(this.streams.length, this.rows() - this.below(width) - 1);
    const share = Math.max(1, Math.floor(room / this.streams.length));
    const live: string[] = [];
    this.streams.forEach((stream, index) => {
      stream.lastWidth = width;
      if (index === 0) {
        const { lines, header } = this.firstStreamLines(stream, width);
        const overflow = lines.length - share;
        if (overflow > 0) {
          this.finished.push(new Chunk(fixed(lines.slice(0, overflow), stream.margin), width, stream));
          stream.committed += overflow - header;
          stream.handedOver = true;
        }
        live.push(...lines.slice(Math.max(0, overflow)));
        return;
      }
      const lines = stream.lines(width);
      if (lines.length <= share) live.push(...lines);
      else if (share < 2) live.push(lines[lines.length - 1] ?? '');
      else
        live.push(
          truncateToWidth(
            `${stream.margin}${stream.label} ${style.dim(`(… ${lines.length - share + 1} lines above, printed in full when it finishes)`)}`,
            width,
          ),
          ...lines.slice(-(share - 1)),
        );
    });
    return live;
  }

  /**
   * The first stream's lines not yet handed over, under a "continued" header when
   * something else was printed since it last handed lines over.
   */
  private firstStreamLines(stream: Stream, width: number): { lines: string[]; header: 0 | 1 } {
    const rest = stream.lines(width).slice(stream.committed);
    const interrupted = stream.handedOver && this.finished.at(-1)?.owner !== stream;
    return interrupted
      ? { lines: [truncateToWidth(`${stream.margin}${stream.label} ${style.dim('(continued)')}:`, width), ...rest], header: 1 }
      : { lines: rest, header: 0 };
  }
}

class Stream {
  /** The header, until the lines it starts are handed over. */
  private header: string;
  /**
   * What the reply says (inert) and is not in `blocks`: all of it as written; as markdown, the
   * blocks that may still change (the last one, which the next delta may continue).
   */
  text = '';
  /** As markdown: the reply's finished blocks, each rendered once for a width (a long reply is not rendered whole at each delta). */
  private readonly blocks: Block[] = [];
  /** Lines of the stream's rendering (at `countedAt` columns) already among the finished lines. */
  committed = 0;
  /** The width (without the margin) `committed` counts lines at. */
  private countedAt: number | undefined;
  /** Whether any of it is among the finished lines. */
  handedOver = false;
  /** The width it was last drawn at; what it leaves when it finishes is that drawing. */
  lastWidth: number | undefined;
  readonly label: string;
  private cache: { width: number; text: string; blocks: number; lines: string[] } | undefined;

  /** @param margin put before every line (a delegate's depth); the reply is laid out in what is left of the width */
  constructor(
    header: string,
    private readonly markdown: MarkdownRenderer | undefined,
    readonly margin: string,
  ) {
    this.header = header;
    this.label = header.replace(/:\s*$/, '');
  }

  append(delta: string): void {
    this.text += delta;
  }

  lines(width: number): string[] {
    const fitted = marginAt(this.margin, width);
    const inner = width - fitted.length;
    if (this.committed > 0 && this.countedAt !== undefined && this.countedAt !== inner) this.rebase(this.countedAt);
    this.countedAt = inner;
    if (this.markdown) this.seal(this.markdown);
    if (this.cache?.width !== width || this.cache.text !== this.text || this.cache.blocks !== this.blocks.length) {
      const lines = this.render(inner);
      this.cache = {
        width,
        text: this.text,
        blocks: this.blocks.length,
        lines: fitted === '' ? lines : lines.map((line) => fitted + line),
      };
    }
    return this.cache.lines;
  }

  private render(width: number): string[] {
    if (!this.markdown) return wrap(this.header + this.text, width);
    const finished = this.blocks.flatMap((block) => block.render(width));
    if (this.blocks.length === 0) return replyLines(this.header, this.text, width, this.markdown);
    return this.text.trim() === '' ? finished : [...finished, ...this.markdown(this.text, width)];
  }

  /**
   * Moves the blocks that can no longer change into `blocks`: those before the last blank line
   * that has a block after it. Markdown's blocks are final once another starts after a blank line
   * (only the last one may still grow, or turn out to be a heading or a table), and a block
   * renders alone as it does among the others, its spacing included.
   */
  private seal(markdown: MarkdownRenderer): void {
    if (!/\n[ \t]*\n[\s\S]*\S/.test(this.text)) return;
    const tokens = new Lexer().lex(this.text);
    let end = 0;
    let offset = 0;
    let last = 0;
    tokens.forEach((token, index) => {
      offset += token.raw.length;
      if (token.type !== 'space') last = index;
    });
    // "2" or "-" after a blank line may be the start of the next item of the list above ("2. …").
    if (/^(?:\d{1,9}|[-+*])$/.test(tokens[last]?.raw.trim() ?? '')) return;
    offset = 0;
    tokens.forEach((token, index) => {
      offset += token.raw.length;
      if (token.type === 'space' && index < last) end = offset;
    });
    // The lexer's pieces add up to the text (checked, rather than trusted, before cutting it).
    if (end === 0 || tokens.reduce((length, token) => length + token.raw.length, 0) !== this.text.length) return;
    const header = this.blocks.length === 0 ? this.header : '';
    const source = this.text.slice(0, end);
    this.blocks.push(new Block((width) => replyLines(header, source, width, markdown)));
    this.text = this.text.slice(end);
  }

  /**
   * The terminal's width changed: the handed-over lines' count no longer says where they end at
   * the new width, so what they showed is dropped from the text, and the count restarts.
   */
  private rebase(oldWidth: number): void {
    if (!this.markdown) {
      // What is left becomes the text, as it was wrapped.
      const rest = wrap(this.header + this.text, oldWidth)
        .slice(this.committed)
        .join('\n');
      // Wrapping drops the spaces at the end, which the next delta may need.
      const spaces = /[ \t]*$/.exec(this.text)?.[0] ?? '';
      this.text = rest.endsWith(spaces) ? rest : rest + spaces;
      this.header = '';
      this.committed = 0;
      return;
    }
    // Markdown: the finished blocks handed over whole are dropped. Lines of a block handed over in
    // part stay counted (at the new width they may be a few more or fewer).
    while (this.blocks.length > 0) {
      const count = this.blocks[0]!.render(oldWidth).length;
      if (count > this.committed) break;
      this.blocks.shift();
      this.header = '';
      this.committed -= count;
    }
  }
}

/** A finished block of a streaming reply, rendered once for each width. */
class Block {
  private cache: { width: number; lines: string[] } | undefined;

  constructor(private readonly lines: (width: number) => string[]) {}

  render(width: number): string[] {
    if (this.cache?.width !== width) this.cache = { width, lines: this.lines(width) };
    return this.cache.lines;
  }
}

/** Renders inert markdown as terminal lines at most `width` wide. */
export type MarkdownRenderer = (text: string, width: number) => string[];

/**
 * A reply under its header: on the header's line when the reply starts with a
 * paragraph ("assistant: Sure, …"), else on the lines under it (a heading, a
 * list or a code block starts a line of its own).
 */
function replyLines(header: string, text: string, width: number, markdown: MarkdownRenderer): string[] {
  const label = stripVTControlCharacters(header);
  const start = text.trimStart();
  if (header === '') return markdown(start, width);
  if (start === '') return wrap(header, width);
  const firstBlock = start.slice(0, start.search(/\n[ \t]*\n|$/));
  if (new Lexer().lex(firstBlock)[0]?.type === 'paragraph') {
    // The label goes through the renderer as text (its markdown characters escaped) so the first line wraps with it.
    const lines = markdown(`${label.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&')}${start}`, width);
    const first = lines[0] ?? '';
    const bare = label.trimEnd();
    if (first.startsWith(bare)) return [`${header.trimEnd()}${first.slice(bare.length)}`, ...lines.slice(1)];
  }
  return [...wrap(header.trimEnd(), width), ...markdown(start, width)];
}

/** Finished lines: rendered again only when the terminal's width changes. */
class Chunk {
  private cache: { width: number; lines: string[] } | undefined;

  /**
   * @param lines the chunk at a width
   * @param renderedAt the width `lines` already has lines for, when they are known
   */
  constructor(
    private readonly lines: (width: number) => string[],
    renderedAt?: number,
    readonly owner?: Stream,
  ) {
    if (renderedAt !== undefined) this.cache = { width: renderedAt, lines: lines(renderedAt) };
  }

  render(width: number): string[] {
    if (this.cache?.width !== width) this.cache = { width, lines: this.lines(width) };
    return this.cache.lines;
  }
}

/** Lines drawn at one width (each starting with `margin`, as far as it fitted), each wrapped again at another. */
function fixed(lines: readonly string[], margin = ''): (width: number) => string[] {
  // The margin they carry is taken off before they are wrapped again, and given again at the new width.
  const copy = margin === '' ? [...lines] : lines.map((line) => line.replace(/^ +/, (spaces) => spaces.slice(margin.length)));
  return (width) => copy.flatMap((line) => wrapWithMargin(line, width, margin));
}

/** A margin never takes more than half the width: a delegate deep down on a narrow terminal still has room, and no line is wider than the terminal. */
function marginAt(margin: string, width: number): string {
  return margin.slice(0, Math.floor(width / 2));
}

function wrapWithMargin(text: string, width: number, margin: string): string[] {
  const fitted = marginAt(margin, width);
  return wrap(text, width - fitted.length).map((line) => fitted + line);
}

/** Lines laid out in the width the margin leaves, the margin put before each. */
function withMargin(margin: string, lines: (width: number) => string[]): (width: number) => string[] {
  if (margin === '') return lines;
  return (width) => {
    const fitted = marginAt(margin, width);
    return lines(width - fitted.length).map((line) => fitted + line);
  };
}

function wrap(text: string, width: number): string[] {
  return wrapTextWithAnsi(text.replace(/\t/g, '   '), Math.max(1, width));
}
