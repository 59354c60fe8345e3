import { spawn } from 'node:child_process';

/** Output kept from a `!command`: the REPL shows it, it is not a log. */
const MAX_OUTPUT = 64 * 1024;

/**
 * `!command`: the user's own command line, run by their shell in the
 * workspace, its output shown in the REPL and not sent to any agent. It is
 * the user typing, not a model, so it is not put through the tool policies.
 */
export function runShellEscape(command: string, cwd: string, signal: AbortSignal): Promise<{ output: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.env.SHELL || '/bin/sh', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'], signal });
    let output = '';
    let cut = false;
    const take = (chunk: Buffer): void => {
      if (output.length >= MAX_OUTPUT) {
        cut = true;
        return;
      }
      output += chunk.toString('utf8');
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (error) => resolve({ output: `${output}${error.message}\n`, code: null }));
    child.on('close', (code) => resolve({ output: cut ? `${output.slice(0, MAX_OUTPUT)}\n… (output cut at 64 KB)` : output, code }));
  });
}
