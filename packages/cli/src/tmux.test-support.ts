import { spawnSync } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { LEGION } from './legion-process.test-support.js';

/** Attempts at starting a terminal: tmux's server can die while it starts on a loaded machine. */
const NEW_SESSION_ATTEMPTS = 3;

/**
 * Runs tmux commands on a private socket with a private config, outside any
 * tmux the tests themselves run in. `new-session` is tried again when tmux
 * says its server went away while starting ("server exited unexpectedly",
 * seen once in ~1,400 tests on a loaded 2-core machine): that is the harness
 * failing to open a terminal, before Legion runs at all. Every other failure
 * throws at once with tmux's own message.
 */
export function tmuxOn(socket: string, config: string, cwd: string): (...args: string[]) => string {
  const env = { ...process.env };
  delete env.TMUX;
  const run = (args: string[]) => spawnSync('tmux', ['-S', socket, '-f', config, ...args], { cwd, env, encoding: 'utf8' });
  return (...args: string[]): string => {
    let result = run(args);
    for (
      let attempt = 1;
      attempt < NEW_SESSION_ATTEMPTS &&
      args[0] === 'new-session' &&
      result.status !== 0 &&
      /server exited unexpectedly|lost server/.test(result.stderr);
      attempt++
    ) {
      run(['kill-server']);
      result = run(args);
    }
    if (result.status !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr}`);
    return result.stdout;
  };
}

/** How long a terminal test waits for text to show: a safety net far above what any step needs. */
const SCREEN_LIMIT_MS = 30_000;

/** Polls `screen` (tmux capture-pane) until it shows `text` (`times` times); the screen then, or an error with what it showed instead. */
export async function waitForText(screen: () => string, text: string, options: { times?: number; limitMs?: number } = {}): Promise<string> {
  const { times = 1, limitMs = SCREEN_LIMIT_MS } = options;
  const deadline = Date.now() + limitMs;
  let shown = screen();
  while (shown.split(text).length - 1 < times) {
    if (Date.now() > deadline)
      throw new Error(`the terminal never showed ${JSON.stringify(text)}${times > 1 ? ` ${times} times` : ''}; it shows:\n${shown}`);
    await delay(100);
    shown = screen();
  }
  return shown;
}

/** A shell command line for a tmux pane: `node legion ARGS` with these variables, then `[legion exited: N]`. */
export function legionCommandLine(variables: Record<string, string>, args: readonly string[]): string {
  const assignments = Object.entries(variables).map(([name, value]) => `${name}=${value}`);
  return `${['env', ...assignments, process.execPath, LEGION, ...args].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`;
}

export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
