import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
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

/**
 * Ends a tmux server, and waits (up to 10 s) until what ran in its panes has exited: kill-server
 * returns at once while Legion, hung up on, still closes its session and writes into the
 * workspace, and a test's cleanup removing that workspace failed with ENOTEMPTY (seen in CI).
 */
export async function killTmuxServer(socket: string, env: NodeJS.ProcessEnv): Promise<void> {
  const panes = spawnSync('tmux', ['-S', socket, 'list-panes', '-a', '-F', '#{pane_pid}'], { env, encoding: 'utf8' });
  const running = descendantsOf((panes.stdout ?? '').split('\n').filter(Boolean).map(Number));
  spawnSync('tmux', ['-S', socket, 'kill-server'], { env });
  const deadline = Date.now() + 10_000;
  while (running.some(isAlive) && Date.now() < deadline) await delay(25);
}

/** The processes `roots` and every process under them, from /proc (Linux, where these tests run). */
function descendantsOf(roots: readonly number[]): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const visit = (pid: number): void => {
    found.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  for (const root of roots) visit(root);
  return found;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
