import {
  CombinedAutocompleteProvider,
  Container,
  Editor,
  ProcessTerminal,
  SelectList,
  Text,
  TUI,
  type AutocompleteProvider,
  type Component,
  type SelectItem,
  type Terminal,
} from '@mariozechner/pi-tui';
import { format } from 'node:util';
import { markdownEnabled, styleFor } from '../render/style.js';
import { markdownLines } from '../render/markdown.js';
import { inert, terminalSafe } from '../render/terminal-text.js';
import { CardView } from './card-view.js';
import { Transcript, type MarkdownRenderer } from './transcript.js';

const style = styleFor(process.stdout);

/**
 * The terminal, inline: everything above the live region is printed once and
 * never touched again, so it scrolls into the terminal's own scrollback; only
 * the live region (streams in progress, the card being answered, queued
 * messages, the status line and the input) changes. pi-tui redraws from the
 * first line that differs, so a keystroke rewrites the input line and a
 * streamed word rewrites the line it lands on, never the screen.
 */
export class Screen {
  readonly tui: TUI;
  readonly editor: InlineEditor;
  /** Finished output, appended to and never edited, then the text still streaming. */
  private readonly transcript: Transcript;
  private readonly card: CardView;
  /** Renders inert markdown at a width when the terminal shows colours; undefined where text is shown as written. */
  readonly markdown: MarkdownRenderer | undefined;
  private readonly queued = new Text('', 0, 0);
  private readonly status = new Text('', 0, 0);
  /** A transient line: a picker, a history search, "press Ctrl-C again". */
  private readonly hint = new Text('', 0, 0);
  /** A list to choose from with ↑/↓ and Enter (`choose`), under its title; empty otherwise. */
  private readonly chooser = new Container();
  private choosing: { cancel: () => void } | undefined;

  /** The replies shown, oldest first, as the model wrote them (made inert): for /raw and /copy. */
  readonly replies: string[] = [];

  /** Settles once the first frame is on the terminal (after `start`). */
  readonly drawn: Promise<void>;
  private readonly frames: FrameWatch;

  constructor(private readonly terminal: Terminal = new ProcessTerminal()) {
    this.tui = new TUI(terminal);
    this.frames = new FrameWatch();
    this.drawn = this.frames.next();
    this.editor = new InlineEditor(
      this.tui,
      {
        borderColor: (text) => style.dim(text),
        selectList: {
          selectedPrefix: (text) => style.cyan(text),
          selectedText: (text) => style.cyan(text),
          description: (text) => style.dim(text),
          scrollInfo: (text) => style.dim(text),
          noMatch: (text) => style.dim(text),
        },
      },
      { paddingX: 0 },
    );
    const underCard = [this.queued, this.hint, this.chooser, this.status, this.editor];
    const linesOf = (parts: Component[], width: number): number => parts.reduce((lines, part) => lines + part.render(width).length, 0);
    // The card takes what the parts under it and a line per live stream leave (and the renderer's spare line).
    this.card = new CardView(
      () => terminal.rows,
      (width) => linesOf(underCard, width) + this.transcript.streamCount + 1,
    );
    const below = [this.card, ...underCard];
    this.markdown = markdownEnabled(process.stdout) ? (text, width) => markdownLines(text, width, style) : undefined;
    this.transcript = new Transcript(
      () => terminal.rows,
      (width) => linesOf(below, width),
      this.markdown,
    );
    for (const part of [this.transcript, ...below, this.frames]) this.tui.addChild(part);
    this.tui.setFocus(this.editor);
  }

  /** The console as it was before `start`: a library's console output goes among the printed lines meanwhile. */
  private savedConsole: Pick<Console, ConsoleMethod> | undefined;

  /** Between `start` and `stop`: the terminal is ours, and frames are drawn. */
  private running = false;

  start(): void {
    this.running = true;
    this.tui.start();
    this.captureConsole();
    this.captureStderr();
  }

  stop(): void {
    this.running = false;
    const unfinished = this.releaseStderr();
    this.releaseConsole();
    this.tui.stop();
    if (unfinished) process.stderr.write(terminalSafe(unfinished));
  }

  /** Whether a list from `choose` is up: keys go to it, not to the input. */
  get isChoosing(): boolean {
    return this.choosing !== undefined;
  }

  /**
   * Shows `items` under `title` to choose from with ↑/↓ and Enter (Esc cancels); the input gets
   * the keys back after. `chosen` gets the item, or undefined when cancelled.
   */
  choose(title: string, items: SelectItem[], chosen: (item: SelectItem | undefined) => void, selected = 0): void {
    this.choosing?.cancel();
    const list = new SelectList(items, Math.min(items.length, 10), {
      selectedPrefix: (text) => style.cyan(text),
      selectedText: (text) => style.cyan(text),
      description: (text) => style.dim(text),
      scrollInfo: (text) => style.dim(text),
      noMatch: (text) => style.dim(text),
    });
    list.setSelectedIndex(selected);
    const close = (item: SelectItem | undefined): void => {
      if (this.choosing !== choosing) return;
      this.choosing = undefined;
      this.chooser.clear();
      this.tui.setFocus(this.editor);
      this.tui.requestRender();
      chosen(item);
    };
    const choosing = { cancel: () => close(undefined) };
    this.choosing = choosing;
    list.onSelect = (item) => close(item);
    list.onCancel = () => close(undefined);
    this.chooser.addChild(new Text(terminalSafe(title), 0, 0));
    this.chooser.addChild(list);
    this.tui.setFocus(list);
    this.tui.requestRender();
  }

  /** Closes the list of `choose`, as Esc would. */
  cancelChoice(): void {
    this.choosing?.cancel();
  }

  /**
   * Gives the terminal back with nothing of the live region left on it but
   * `last` (no input box), so what is written next (the error that ended the
   * REPL) reads cleanly below what was printed. A line stays: pi-tui leaves the
   * first line standing when a frame shrinks to nothing.
   */
  async stopClean(last: string): Promise<void> {
    // Stopped already (the user quit, then closing failed): no frame would come.
    if (!this.running) return;
    for (const part of [this.card, this.queued, this.hint]) part.setText('');
    this.status.setText(terminalSafe(last));
    this.tui.removeChild(this.editor);
    const drawn = this.frames.next();
    this.tui.requestRender();
    await drawn;
    this.stop();
  }

  /**
   * Libraries write to the console (the provider SDKs' deprecation and retry
   * warnings): written straight to the terminal, such a line lands inside the
   * live region, the renderer's idea of the screen goes wrong and later output
   * is drawn over it. Printed as finished lines instead, it stays readable.
   */
  private captureConsole(): void {
    if (this.savedConsole) return;
    this.savedConsole = Object.fromEntries(CONSOLE_METHODS.map((method) => [method, console[method]])) as Pick<Console, ConsoleMethod>;
    for (const method of CONSOLE_METHODS) {
      console[method] = (...args: unknown[]) => this.print(style.yellow(format(...args)));
    }
  }

  private releaseConsole(): void {
    const saved = this.savedConsole;
    if (!saved) return;
    for (const method of CONSOLE_METHODS) console[method] = saved[method];
    this.savedConsole = undefined;
  }

  /** `process.stderr.write` as it was before `start`, and a line written to it in part. */
  private savedStderr: { write: typeof process.stderr.write; partial: string } | undefined;

  /**
   * Node's own warnings and libraries that write to stderr directly: the same
   * fault as the console's, the same remedy; a line is printed once it is whole.
   */
  private captureStderr(): void {
    if (this.savedStderr) return;
    const saved = { write: process.stderr.write, partial: '' };
    this.savedStderr = saved;
    const write = (
      chunk: string | Uint8Array,
      encodingOrDone?: BufferEncoding | ((error?: Error | null) => void),
      done?: (error?: Error | null) => void,
    ): boolean => {
      const text =
        saved.partial +
        (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encodingOrDone === 'string' ? encodingOrDone : 'utf8'));
      const end = text.lastIndexOf('\n');
      saved.partial = text.slice(end + 1);
      if (end >= 0) this.print(style.yellow(text.slice(0, end)));
      const callback = typeof encodingOrDone === 'function' ? encodingOrDone : done;
      if (callback) process.nextTick(callback);
      return true;
    };
    process.stderr.write = write as typeof process.stderr.write;
  }

  /** Gives stderr back; returns what was written to it after its last new line. */
  private releaseStderr(): string {
    const saved = this.savedStderr;
    if (!saved) return '';
    this.savedStderr = undefined;
    process.stderr.write = saved.write;
    return saved.partial;
  }

  setAutocomplete(provider: AutocompleteProvider | CombinedAutocompleteProvider): void {
    this.editor.setAutocompleteProvider(provider);
  }

  /*
   * Every way text reaches the REPL's screen is below, and each passes it through `terminalSafe`
   * (Legion's colours stay, every other control is shown): what a caller forgot to make inert can
   * still not move the cursor, erase or talk to the terminal. Streamed model text is made inert
   * whole, colour codes too, a character at a time, so a sequence split across deltas is shown too.
   */

  /** Prints finished lines above the live region; `margin` goes before each of them (spaces: a delegate's depth). */
  print(text: string, margin = ''): void {
    this.transcript.print(terminalSafe(text), margin);
    this.tui.requestRender();
  }

  /** A reply that is complete already (it did not stream), under its header: markdown rendered on a terminal with colours. */
  printReply(header: string, text: string, margin = '', { remember = true } = {}): void {
    const shown = inert(text);
    if (remember) this.remember(shown);
    this.transcript.printReply(terminalSafe(header), shown, margin);
    this.tui.requestRender();
  }

  /** A block that grows while its text streams; `finish` moves it among the printed lines. */
  openStream(header: string, margin = ''): { append(text: string): void; finish(): void } {
    const stream = this.transcript.open(terminalSafe(header), margin);
    this.tui.requestRender();
    // A CR that ends a delta is held back: the next may begin with the new line that makes it a line break, not a lone CR.
    let heldCarriageReturn = false;
    let whole = '';
    const append = (text: string): void => {
      whole += text;
      stream.append(text);
    };
    return {
      append: (delta) => {
        const text = `${heldCarriageReturn ? '\r' : ''}${delta}`;
        heldCarriageReturn = text.endsWith('\r');
        append(inert(heldCarriageReturn ? text.slice(0, -1) : text));
        this.tui.requestRender();
      },
      finish: () => {
        if (heldCarriageReturn) append(inert('\r'));
        stream.finish();
        this.remember(whole);
        this.tui.requestRender();
      },
    };
  }

  private remember(reply: string): void {
    if (reply.trim() === '') return;
    this.replies.push(reply);
    // Enough for "/raw 20"; a long session does not keep every reply twice.
    if (this.replies.length > 50) this.replies.shift();
  }

  /** `tail`: lines of the card's end that stay on screen when it is too tall (how to answer it). */
  setCard(text: string | ((width: number) => string), tail?: number | ((width: number) => number)): void {
    this.card.setText(typeof text === 'string' ? terminalSafe(text) : (width) => terminalSafe(text(width)), tail);
    this.tui.requestRender();
  }

  /** Prints the card on screen whole above the live region when it did not fit there; false when all of it is shown already. */
  printClippedCard(): boolean {
    const whole = this.card.clipped;
    if (whole === undefined) return false;
    this.print(whole);
    return true;
  }

  setQueued(lines: readonly string[]): void {
    this.queued.setText(terminalSafe(lines.map((line) => style.dim(`queued: ${line}`)).join('\n')));
    this.tui.requestRender();
  }

  setStatus(text: string): void {
    this.status.setText(terminalSafe(text));
    this.tui.requestRender();
  }

  /** Replaces what the input holds and draws it (a key the REPL takes from the editor draws nothing by itself). */
  setInput(text: string): void {
    this.editor.setText(text);
    this.tui.requestRender();
  }

  setHint(text: string): void {
    this.hint.setText(text ? terminalSafe(style.cyan(text)) : '');
    this.tui.requestRender();
  }

  /**
   * Clears the screen and keeps the scrollback: what is on the screen is scrolled up into it
   * (new lines at the bottom row), the cursor goes home, and the renderer starts afresh there,
   * as on its first frame. pi-tui's own forced redraw would erase the scrollback (ESC [3J); it has
   * no public way to start over without that, so its render state is reset here by name (the
   * version is pinned; if those fields are not there, the old full redraw is done instead).
   */
  clear(): void {
    this.transcript.clear();
    const fresh = {
      previousLines: [],
      previousWidth: 0,
      previousHeight: 0,
      cursorRow: 0,
      hardwareCursorRow: 0,
      maxLinesRendered: 0,
      previousViewportTop: 0,
    };
    if (!Object.keys(fresh).every((field) => field in this.tui)) return this.tui.requestRender(true);
    const rows = this.terminal.rows;
    this.terminal.write(`\x1b[${rows};1H${'\n'.repeat(rows)}\x1b[H`);
    Object.assign(this.tui, fresh);
    this.tui.requestRender();
  }

  /** Puts text on the terminal's clipboard (OSC 52: the text goes base64-encoded, so nothing in it reaches the terminal as a control). */
  copyToClipboard(text: string): void {
    this.terminal.write(`\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`);
  }
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;
type ConsoleMethod = (typeof CONSOLE_METHODS)[number];

/**
 * pi-tui's editor pads every line to the terminal's width; the renderer clears
 * a line before writing it, so the padding is only bytes on the wire (a
 * keystroke on a 120-column terminal wrote 170 B, now about 50 plus the line).
 */
class InlineEditor extends Editor {
  override render(width: number): string[] {
    return super.render(width).map(trimPadding);
  }
}

/** Trailing spaces before the line's closing escape sequences (style resets, hyperlink end). */
function trimPadding(line: string): string {
  return line.replace(/ +((?:\x1b\[[0-9;]*m|\x1b\]8;;\x07)*)$/, '$1');
}

/**
 * Draws nothing; tells when pi-tui next renders. pi-tui writes a frame right after rendering its
 * components, in the same call, so whoever awaits `next()` runs once the frame is written.
 */
class FrameWatch implements Component {
  private waiting: Array<() => void> = [];

  next(): Promise<void> {
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  render(): string[] {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
    return [];
  }

  invalidate(): void {}
}
