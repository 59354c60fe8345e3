import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { killTmuxServer, shellQuote, tmuxOn } from '../tmux.test-support.js';

/** How long the screen may take to show something, generous for a loaded 2-core machine. */
const SCREEN_LIMIT_MS = 40_000;

export const TMUX_MISSING = spawnSync('tmux', ['-V']).status !== 0;

/**
 * A real terminal: tmux on a private socket, read with capture-pane including
 * the scrollback. Tests wait on what the screen shows, never on a fixed sleep.
 */
export class TmuxTerminal {
  private readonly socket: string;
  private readonly config: string;
  private readonly env: NodeJS.ProcessEnv;
  private runner: ((...args: string[]) => string) | undefined;

  constructor(
    private readonly dir: string,
    name = 'repl',
  ) {
    this.socket = join(dir, `${name}.sock`);
    this.config = join(dir, `${name}.tmux.conf`);
    writeFileSync(this.config, 'set -g remain-on-exit on\nset -g history-limit 20000\n');
    this.env = { ...process.env };
    delete this.env.TMUX;
  }

  private get tmux(): (...args: string[]) => string {
    this.runner ??= tmuxOn(this.socket, this.config, this.dir);
    return this.runner;
  }

  /** Runs `command` (a shell line) in a new 120×40 terminal. */
  start(command: string): void {
    this.tmux('new-session', '-d', '-s', 'main', '-x', '120', '-y', '40', '-c', this.dir, command);
  }

  /** Everything shown so far, scrollback included, wrapped lines joined. */
  screen(): string {
    return this.tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'main');
  }

  /** The screen as `screen()` shows it, with the colours and weights as escape sequences (capture-pane -e). */
  screenWithStyles(): string {
    return this.tmux('capture-pane', '-p', '-e', '-J', '-S', '-', '-t', 'main');
  }

  /** What is on the screen now, without the scrollback. */
  visible(): string {
    return this.tmux('capture-pane', '-p', '-J', '-t', 'main');
  }

  /** What programs in the terminal put on tmux's clipboard (OSC 52, with `set-clipboard on`), or undefined when nothing did. */
  clipboard(): string | undefined {
    const result = spawnSync('tmux', ['-S', this.socket, 'show-buffer'], { env: this.env, encoding: 'utf8' });
    return result.status === 0 ? result.stdout : undefined;
  }

  /** `pollMs` small catches a moment that passes quickly (the few hundred milliseconds of start-up). */
  async waitFor(expected: string | RegExp, after = 0, pollMs = 100): Promise<string> {
    const deadline = Date.now() + SCREEN_LIMIT_MS;
    for (;;) {
      const shown = this.screen();
      const rest = shown.slice(after);
      if (typeof expected === 'string' ? rest.includes(expected) : expected.test(rest)) return shown;
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${String(expected)}; it shows:\n${shown}`);
      await delay(pollMs);
    }
  }

  /** Counts occurrences, to wait for the second of something. */
  count(text: string): number {
    return this.screen().split(text).length - 1;
  }

  async waitForCount(text: string, count: number): Promise<string> {
    const deadline = Date.now() + SCREEN_LIMIT_MS;
    while (this.count(text) < count) {
      if (Date.now() > deadline)
        throw new Error(`the terminal never showed ${JSON.stringify(text)} ${count} times; it shows:\n${this.screen()}`);
      await delay(100);
    }
    return this.screen();
  }

  /** From now on, every byte the program writes to the terminal is appended to `file` (tmux pipe-pane). */
  record(file: string): void {
    this.tmux('pipe-pane', '-o', '-t', 'main', `cat >> ${shellQuote(file)}`);
  }

  /** Types text literally, then optionally presses Enter. */
  type(text: string, enter = true): void {
    this.tmux('send-keys', '-t', 'main', '-l', text);
    if (enter) this.tmux('send-keys', '-t', 'main', 'Enter');
  }

  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'main', ...keys);
  }

  /** Ends the terminal, and waits until what ran in it has exited (`killTmuxServer`). */
  kill(): Promise<void> {
    return killTmuxServer(this.socket, this.env);
  }
}

export { shellQuote };
