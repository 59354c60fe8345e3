import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { inertLine, stderr } from '../render/terminal-text.js';

export interface ChatOptions {
  workspace?: string | undefined;
  new?: boolean | undefined;
  session?: string | undefined;
  to?: string | undefined;
}

/**
 * `legion` with no command, or `legion chat`. On a terminal, the REPL; in a
 * pipe there is no one to type, so it does what `legion run` does with the
 * message on standard input, and says so.
 */
export async function chatCommand(options: ChatOptions): Promise<number> {
  // Said before anything is drawn, so the refusal is not left below a half-started screen.
  if (options.new && options.session) throw new Error('Use either --session or --new, not both.');
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    stderr.write(
      'legion: not a terminal, so this runs like "legion run": the message is read from standard input (use "legion run" in scripts).\n',
    );
    const { runCommand } = await import('../commands/run.js');
    return runCommand([], { workspace: options.workspace, session: options.session, newSession: options.new, to: options.to });
  }
  if (!options.workspace && !workspaceAbove(process.cwd())) {
    if (!(await offerInit())) return 1;
  }
  // The input comes up before the engine loads and the session opens, so typing can start at once;
  // what is submitted meanwhile waits for the session. Loaded only here: other commands do not pay for the UI.
  const { Screen } = await import('./screen.js');
  const screen = new Screen();
  const { EarlyInput } = await import('./early-input.js');
  const early = new EarlyInput(screen);
  screen.setStatus('opening the workspace…');
  screen.start();
  // The input reaches the terminal before the engine loads: the binary's chunks load synchronously
  // (scripts/build.mjs turns each import() into a require()), so loading core and opening the
  // session would otherwise run before pi-tui's first render, which waits on a timer.
  await screen.drawn;
  try {
    const root = (await import('../workspace.js')).resolveWorkspace(options.workspace);
    const { startRepl } = await import('./repl.js');
    return await startRepl({ root, newSession: options.new, session: options.session, to: options.to, screen, early });
  } catch (error) {
    // The error is written below what was printed, not below a left-over input box.
    await screen.stopClean('The session could not be opened:');
    throw error;
  }
}

/**
 * Whether a `.legion/` directory is here or above: the question to ask before
 * offering `legion init`, answered without loading the engine (that comes
 * after the input is on screen; the engine's own lookup then finds the root).
 */
function workspaceAbove(start: string): boolean {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const candidate = join(dir, '.legion');
    if (existsSync(candidate) && statSync(candidate).isDirectory()) return true;
    if (dirname(dir) === dir) return false;
  }
}

async function offerInit(): Promise<boolean> {
  const readline = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (
      await readline.question(`No .legion/ workspace in ${inertLine(process.cwd())} or above it. Create one here (legion init)? [Y/n] `)
    )
      .trim()
      .toLowerCase();
    if (answer !== '' && answer !== 'y' && answer !== 'yes') {
      stderr.write('Nothing created. Run "legion init" in your project, or "legion -w DIR" to use another workspace.\n');
      return false;
    }
  } finally {
    readline.close();
  }
  const { initCommand } = await import('../commands/init.js');
  await initCommand('.');
  return true;
}
