import { matchesKey } from '@mariozechner/pi-tui';
import type { InputHistory } from './input-history.js';

/**
 * Ctrl-R: search the input history backwards, as a shell does. Typing narrows
 * the query, Ctrl-R again finds an older match, Enter takes it into the input,
 * Esc or Ctrl-C leaves the input as it was.
 */
export class HistorySearch {
  private query = '';
  private match: { index: number; text: string } | undefined;
  active = false;

  constructor(
    private readonly history: InputHistory,
    private readonly show: (line: string) => void,
    private readonly accept: (text: string) => void,
  ) {}

  start(): void {
    this.active = true;
    this.query = '';
    this.match = undefined;
    this.render();
  }

  /** Takes every key while searching. */
  handle(data: string): void {
    if (matchesKey(data, 'escape') || matchesKey(data, 'ctrl+c') || matchesKey(data, 'ctrl+g')) return this.stop();
    if (matchesKey(data, 'enter')) {
      const text = this.match?.text;
      this.stop();
      if (text !== undefined) this.accept(text);
      return;
    }
    if (matchesKey(data, 'ctrl+r')) this.match = this.history.search(this.query, this.match?.index) ?? this.match;
    else if (matchesKey(data, 'backspace')) {
      this.query = this.query.slice(0, -1);
      this.match = this.history.search(this.query);
    } else if (data.length >= 1 && !data.startsWith('\x1b') && data >= ' ') {
      this.query += data;
      this.match = this.history.search(this.query);
    }
    this.render();
  }

  private stop(): void {
    this.active = false;
    this.show('');
  }

  private render(): void {
    const found = this.match ? this.match.text.replace(/\n/g, ' ⏎ ') : this.query ? '(no match)' : '';
    this.show(`(history search) '${this.query}': ${found}   Enter takes it · Ctrl-R older · Esc leaves`);
  }
}
