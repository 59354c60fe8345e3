import { Text, truncateToWidth, type Component } from '@mariozechner/pi-tui';
import { styleFor } from '../render/style.js';

const style = styleFor(process.stdout);

/**
 * The card being answered (an approval, a question), kept within the terminal. A card taller than
 * the room the live region leaves it (a long diff, a long question, a short terminal) would push
 * the live region's top above the screen, and the renderer, which can rewrite only what is on the
 * screen, would then clear the screen and the scrollback and draw everything again at the next
 * change. So it shows its first lines, a line saying how many are hidden and that Ctrl-O prints
 * the whole card above, and its last lines.
 */
export class CardView implements Component {
  private readonly text = new Text('', 0, 0);
  /** The card's last lines, wrapped on their own: kept whole when the card is clipped. */
  private readonly tailText = new Text('', 0, 0);
  private source = '';
  /** The card at a width: a question's markdown is laid out for the terminal's width, so it is composed again when that changes. */
  private compose: (width: number) => string = () => '';
  private composedWidth = -1;
  private tail: number | ((width: number) => number) = 1;
  /** Lines hidden at the last render: 0 when the whole card was shown. */
  private hidden = 0;

  /**
   * @param rows the terminal's height now
   * @param reserved lines the rest of the live region takes at this width, the spare line included
   */
  constructor(
    private readonly rows: () => number,
    private readonly reserved: (width: number) => number,
  ) {}

  /**
   * @param tail how many of the text's last lines say how to answer it (the menu, the prompt for a
   * reason), or how many at a width (a menu wraps its long lines itself): a clipped card keeps them
   * whole, however many rows they wrap to on a narrow terminal
   */
  setText(text: string | ((width: number) => string), tail: number | ((width: number) => number) = 1): void {
    this.compose = typeof text === 'string' ? () => text : text;
    this.tail = tail;
    this.composedWidth = -1;
    this.source = typeof text === 'string' ? text : '?';
  }

  private layout(width: number): void {
    if (width === this.composedWidth) return;
    this.composedWidth = width;
    this.source = this.compose(width);
    const lines = this.source.split('\n');
    const kept = Math.min(Math.max(1, typeof this.tail === 'number' ? this.tail : this.tail(width)), lines.length);
    this.text.setText(lines.slice(0, lines.length - kept).join('\n'));
    this.tailText.setText(lines.slice(lines.length - kept).join('\n'));
  }

  /** The whole card, when the last render had to clip it; undefined when all of it is on screen. */
  get clipped(): string | undefined {
    return this.hidden > 0 ? this.source : undefined;
  }

  render(width: number): string[] {
    this.layout(width);
    if (this.source === '') return [];
    const lines = this.text.render(width);
    const tail = this.tailText.render(width);
    // Never less than the first line, the note and the tail: the card must still say what it is and how to answer.
    const room = Math.max(tail.length + 2, this.rows() - this.reserved(width));
    if (lines.length + tail.length <= room) {
      this.hidden = 0;
      return [...lines, ...tail];
    }
    const head = room - tail.length - 1;
    this.hidden = lines.length - head;
    const note = truncateToWidth(
      style.dim(`  … ${this.hidden} more line${this.hidden === 1 ? '' : 's'} of this card: Ctrl-O prints it whole above`),
      width,
    );
    return [...lines.slice(0, head), note, ...tail];
  }

  invalidate(): void {
    this.composedWidth = -1;
    this.text.invalidate();
    this.tailText.invalidate();
  }
}
