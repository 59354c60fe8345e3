import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { basename } from 'node:path';

/** A node process a test started, its stdout read as lines (the protocol multi-process tests speak: READY, STEP n, DONE …). */
export interface ChildRun {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** Resolves with the first stdout line (seen or yet to come) that matches; rejects if the child ends first. */
  waitFor(matches: (line: string) => boolean, what: string): Promise<string>;
  /** Resolves once the child has exited and been reaped (only then is its pid gone). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Complete stdout lines so far. */
  lines(): readonly string[];
  stderr(): string;
}

/**
 * Runs `script` with `args` in a new node process, stdin, stdout and stderr piped.
 * `waitLimitMs` is a safety net against a hung child for each `waitFor`, far
 * above what any step needs (never a timing assertion); without it a wait
 * lasts until the line comes or the child ends.
 */
export function runNodeChild(
  script: string,
  args: readonly string[],
  options: { waitLimitMs?: number | undefined; env?: NodeJS.ProcessEnv | undefined } = {},
): ChildRun {
  const child = spawn(process.execPath, [script, ...args], { stdio: 'pipe', ...(options.env ? { env: options.env } : {}) });
  const name = basename(script);
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
    pid: child.pid!,
    exited,
    lines: () => lines,
    stderr: () => stderr,
    waitFor: (matches, what) =>
      new Promise((resolve, reject) => {
        let checked = 0;
        const limit = options.waitLimitMs;
        const timer =
          limit === undefined
            ? undefined
            : setTimeout(() => finish(new Error(`${name} printed no ${what} within ${limit} ms. stderr:\n${stderr}`)), limit);
        const finish = (error?: Error, line?: string): void => {
          if (timer) clearTimeout(timer);
          waiters.delete(check);
          if (error) reject(error);
          else resolve(line!);
        };
        const check = (): void => {
          for (; checked < lines.length; checked++) {
            if (matches(lines[checked]!)) return finish(undefined, lines[checked]);
          }
          if (ended) finish(new Error(`${name} exited before printing ${what}. stdout:\n${lines.join('\n')}\nstderr:\n${stderr}`));
        };
        waiters.add(check);
        check();
      }),
  };
}
