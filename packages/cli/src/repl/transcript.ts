import { truncateToWidth, wrapTextWithAnsi, type Component } from '@mariozechner/pi-tui';
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
   */
  constructor(
    private readonly rows: () => number,
    private readonly below: (width: number) => number,
  ) {}

  /** `margin`: put before every line, wrapped ones too (a delegate's work sits under its delegation). */
  print(text: string, margin = ''): void {
    // As pi-tui's Text did: nothing but white space takes no line.
    if (text.trim() !== '') this.finished.push(new Chunk([text], undefined, undefined, margin));
  }

  /** A reply that grows as it streams; `finish` prints the rest of it, unchanged, among the finished lines. */
  open(header: string, margin = ''): { append(text: string): void; finish(): void } {
    const stream = new Stream(header, margin);
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
    // Never drawn: wrapped when it is.
    if (width === undefined) this.finished.push(new Chunk([stream.text], undefined, stream, stream.margin));
    // The first stream leaves what it shows; another one had lines hidden, now printed whole.
    else
      this.finished.push(
        new Chunk(index === 0 ? this.firstStreamLines(stream, width).lines : stream.lines(width), width, stream, stream.margin),
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
          this.finished.push(new Chunk(lines.slice(0, overflow), width, stream, stream.margin));
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
  text: string;
  /** Lines of the stream's rendering (at `countedAt` columns) already among the finished lines. */
  committed = 0;
  private countedAt: number | undefined;
  /** Whether any of it is among the finished lines. */
  handedOver = false;
  /** The width it was last drawn at; what it leaves when it finishes is that drawing. */
  lastWidth: number | undefined;
  readonly label: string;
  private cache: { width: number; text: string; lines: string[] } | undefined;

  constructor(
    header: string,
    readonly margin: string,
  ) {
    this.text = header;
    this.label = header.replace(/:\s*$/, '');
  }

  append(delta: string): void {
    this.text += delta;
  }

  lines(width: number): string[] {
    // The terminal's width changed: what is left becomes the text, as it was wrapped (its line
    // count no longer says where the handed-over part ends at the new width).
    if (this.committed > 0 && this.countedAt !== undefined && this.countedAt !== width) {
      const rest = wrap(this.text, this.countedAt - marginAt(this.margin, this.countedAt).length)
        .slice(this.committed)
        .join('\n');
      // Wrapping drops the spaces at the end, which the next delta may need.
      const spaces = /[ \t]*$/.exec(this.text)?.[0] ?? '';
      this.text = rest.endsWith(spaces) ? rest : rest + spaces;
      this.committed = 0;
    }
    this.countedAt = width;
    if (this.cache?.width !== width || this.cache.text !== this.text)
      this.cache = { width, text: this.text, lines: wrapWithMargin(this.text, width, this.margin) };
    return this.cache.lines;
  }
}

/** Finished lines: re-wrapped only when the terminal's width changes. */
class Chunk {
  private cache: { width: number; lines: string[] } | undefined;

  /**
   * @param source its text; lines already wrapped (and given their margin) when `renderedAt` says at which width
   * @param margin put before every line at a new width (a stream's lines carry it; re-wrapped, they are given it again)
   */
  constructor(
    private readonly source: string[],
    renderedAt?: number,
    readonly owner?: Stream,
    private readonly margin = '',
  ) {
    this.carriesMargin = renderedAt !== undefined;
    if (renderedAt !== undefined) this.cache = { width: renderedAt, lines: [...source] };
  }

  private readonly carriesMargin: boolean;

  render(width: number): string[] {
    if (this.cache?.width !== width) {
      // Lines a stream left carry its margin: taken off before they are wrapped again at the new width.
      const text = this.carriesMargin
        ? this.source.map((line) => line.replace(/^ +/, (spaces) => spaces.slice(this.margin.length)))
        : this.source;
      this.cache = { width, lines: text.flatMap((line) => wrapWithMargin(line, width, this.margin)) };
    }
    return this.cache.lines;
  }
}

function wrap(text: string, width: number): string[] {
  return wrapTextWithAnsi(text.replace(/\t/g, '   '), Math.max(1, width));
}

/** A margin never takes more than half the width: a delegate deep down on a narrow terminal still has room, and no line is wider than the terminal. */
function marginAt(margin: string, width: number): string {
  return margin.slice(0, Math.floor(width / 2));
}

function wrapWithMargin(text: string, width: number, margin: string): string[] {
  const fitted = marginAt(margin, width);
  return wrap(text, width - fitted.length).map((line) => fitted + line);
}
