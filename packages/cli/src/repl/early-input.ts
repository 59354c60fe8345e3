import { matchesKey } from '@mariozechner/pi-tui';
import type { Screen } from './screen.js';

/** Two Ctrl-C presses on an empty line within this long quit. */
export const DOUBLE_PRESS_MS = 2000;

/**
 * The keys while the workspace opens, before the REPL listens: the input is on
 * screen from the first moment, so what it promises holds from then on. Lines
 * submitted wait for the session; Ctrl-D, or Ctrl-C twice, on an empty line is
 * a request to leave, kept until the REPL is up (which then quits at once and
 * sends nothing). Without this the editor swallowed those keys and the user
 * was left in a REPL they had asked to leave.
 */
export class EarlyInput {
  readonly lines: string[] = [];
  quit = false;
  /** When Ctrl-C was last pressed on an empty line: a second press after the REPL is up still counts. */
  lastCtrlC = 0;
  private readonly detach: () => void;

  constructor(private readonly screen: Screen) {
    screen.editor.onSubmit = (text) => this.lines.push(text);
    this.detach = screen.tui.addInputListener((data) => (this.key(data) ? { consume: true } : undefined));
  }

  /** The REPL takes the keys over. */
  end(): void {
    this.detach();
  }

  private key(data: string): boolean {
    const empty = this.screen.editor.getText() === '';
    if (this.quit) return true;
    if (matchesKey(data, 'ctrl+d') && empty) {
      this.leave();
      return true;
    }
    if (!matchesKey(data, 'ctrl+c')) return false;
    if (!empty) this.screen.editor.setText('');
    else if (Date.now() - this.lastCtrlC < DOUBLE_PRESS_MS) this.leave();
    else {
      this.lastCtrlC = Date.now();
      this.screen.setHint('Press Ctrl-C again to quit (or Ctrl-D).');
      setTimeout(() => this.screen.setHint(''), DOUBLE_PRESS_MS).unref();
    }
    return true;
  }

  private leave(): void {
    this.quit = true;
    this.screen.setHint('');
    this.screen.setStatus('quitting as soon as the workspace is open…');
  }
}
