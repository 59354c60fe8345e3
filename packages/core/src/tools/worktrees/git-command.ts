// Through the lazy loader: every process that opens a workspace imports this folder, few ever run git.
import { childProcessModule } from '../child-processes/node-child-process.js';

export interface GitOutcome {
  /** The exit code; `-1` when git could not be started at all. */
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Diffs and file contents a worktree's review reads at most (a model's change is bounded by what a review can show anyway). */
const MAX_GIT_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * Runs git with an argument array, never a shell string: paths and ids that came from a model
 * reach git as single arguments, so nothing in them is ever parsed by a shell. A failure is an
 * outcome (the exit code and git's own words), not a throw: callers turn it into a tool result.
 */
export function runGit(
  cwd: string,
  args: readonly string[],
  options: { input?: Buffer | string; env?: Readonly<Record<string, string>> | undefined } = {},
): Promise<GitOutcome> {
  return new Promise((resolve) => {
    const child = childProcessModule().execFile(
      'git',
      [...args],
      {
        cwd,
        encoding: 'buffer',
        maxBuffer: MAX_GIT_OUTPUT_BYTES,
        // Prompts (credentials, editors) would hang a tool call; a pager would wait on a terminal that is not there.
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: 'true', LC_ALL: 'C', ...options.env },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout: Buffer.from(stdout), stderr: Buffer.from(stderr).toString('utf8').trim() });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Runs git and returns its output as text, or throws with git's own message: for steps that must succeed. */
export async function gitText(
  cwd: string,
  args: readonly string[],
  options: { env?: Readonly<Record<string, string>> } = {},
): Promise<string> {
  const outcome = await runGit(cwd, args, options);
  if (outcome.code !== 0) throw new Error(`git ${args[0] ?? ''} failed: ${outcome.stderr || `exit code ${outcome.code}`}`);
  return outcome.stdout.toString('utf8');
}
