import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface ChildRun {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  lines(): string[];
  /** Resolves with the first line (already printed or to come) that matches; rejects if the process ends first. */
  waitFor(matches: (line: string) => boolean, what: string): Promise<string>;
  stderr(): string;
}

/** A node process running `script` with `args`, its stdout read as lines. */
export function runNode(script: string, args: string[]): ChildRun {
  const child = spawn(process.execPath, [script, ...args], { stdio: 'pipe' });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  let stderr = '';
  let ended = false;
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const wake of [...waiters]) wake();
  });
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      ended = true;
      for (const wake of [...waiters]) wake();
      resolve({ code, signal });
    });
  });
  return {
    child,
    exited,
    lines: () => lines,
    stderr: () => stderr,
    waitFor: (matches, what) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const found = lines.find(matches);
          if (found !== undefined) {
            waiters.delete(check);
            resolve(found);
          } else if (ended) {
            waiters.delete(check);
            reject(new Error(`the process ended before ${what}; stdout: ${lines.join('\n')}; stderr: ${stderr}`));
          }
        };
        waiters.add(check);
        check();
      }),
  };
}
