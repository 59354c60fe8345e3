import { spawn } from 'node:child_process';
import { BoundedOutput } from './bounded-output.js';

export interface ArgvRun {
  program: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** 0 or undefined: no own limit (the signal still stops it). */
  timeoutMs?: number | undefined;
}

export interface ArgvOutcome {
  /** Exit code, or null when a signal ended it. */
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Why it was stopped early, if it was. */
  stopped?: 'timeout' | 'aborted' | undefined;
  /** Set when the program could not be started at all (not found, not executable). */
  startError?: string | undefined;
}

/** After SIGTERM, how long a program gets to exit before SIGKILL. */
const KILL_GRACE_MS = 2000;

/**
 * Runs a program with its arguments and NO shell: each argument reaches the
 * program as one argv entry, so `; rm -rf x` or `$(…)` in an argument is just
 * text. It runs in its own process group so that stopping it also stops what
 * it started.
 */
export function runArgv(run: ArgvRun): Promise<ArgvOutcome> {
  return new Promise((resolve) => {
    const stdout = new BoundedOutput();
    const stderr = new BoundedOutput();
    let stopped: ArgvOutcome['stopped'];
    let killTimer: NodeJS.Timeout | undefined;
    let timeoutTimer: NodeJS.Timeout | undefined;
    const child = spawn(run.program, [...run.args], {
      cwd: run.cwd,
      env: run.env,
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    const stop = (reason: 'timeout' | 'aborted'): void => {
      // The group is signalled even if the program itself has exited: a background child may still hold its output open.
      if (stopped) return;
      stopped = reason;
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const onAbort = (): void => stop('aborted');
    const finish = (outcome: Pick<ArgvOutcome, 'exitCode' | 'exitSignal' | 'startError'>): void => {
      clearTimeout(killTimer);
      clearTimeout(timeoutTimer);
      run.signal.removeEventListener('abort', onAbort);
      resolve({ ...outcome, stdout: stdout.text(), stderr: stderr.text(), stopped });
    };
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', (error: NodeJS.ErrnoException) => {
      // 'error' without a pid means it never started; a later 'close' will not come.
      if (child.pid === undefined) finish({ exitCode: null, exitSignal: null, startError: describeStartError(run.program, error) });
    });
    child.once('close', (code, signal) => finish({ exitCode: code, exitSignal: signal }));
    if (run.signal.aborted) stop('aborted');
    else run.signal.addEventListener('abort', onAbort, { once: true });
    if (run.timeoutMs) timeoutTimer = setTimeout(() => stop('timeout'), run.timeoutMs);
  });
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    // A negative pid addresses the process group the detached child leads.
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

function describeStartError(program: string, error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return `"${program}" was not found (not on PATH, or the working directory does not exist)`;
  if (error.code === 'EACCES') return `"${program}" is not executable`;
  return `"${program}" could not be started: ${error.message}`;
}
