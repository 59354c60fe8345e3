import { createInterface } from 'node:readline/promises';
import { findWorkspaceRoot } from '@legion-collective/core';
import { resolveWorkspace } from '../workspace.js';

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
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write('legion: not a terminal, so this runs like "legion run": the message is read from standard input (use "legion run" in scripts).\n');
    const { runCommand } = await import('../commands/run.js');
    return runCommand([], { workspace: options.workspace, session: options.session, newSession: options.new, to: options.to });
  }
  if (!options.workspace && !findWorkspaceRoot(process.cwd())) {
    if (!(await offerInit())) return 1;
  }
  const root = resolveWorkspace(options.workspace);
  // Loaded only now: `legion --help` and the other commands do not pay for the terminal UI.
  const { startRepl } = await import('./repl.js');
  return startRepl({ root, newSession: options.new, session: options.session, to: options.to });
}

async function offerInit(): Promise<boolean> {
  const readline = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await readline.question(`No .legion/ workspace in ${process.cwd()} or above it. Create one here (legion init)? [Y/n] `)).trim().toLowerCase();
    if (answer !== '' && answer !== 'y' && answer !== 'yes') {
      process.stderr.write('Nothing created. Run "legion init" in your project, or "legion -w DIR" to use another workspace.\n');
      return false;
    }
  } finally {
    readline.close();
  }
  const { initCommand } = await import('../commands/init.js');
  await initCommand('.');
  return true;
}
