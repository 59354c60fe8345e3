import type { GroupPurpose } from '../../child-processes/process-records.js';
import type { SandboxProfile } from '../../child-processes/sandbox-profile.js';
import { exitAsSent } from '../../child-processes/containment.js';
import { signalGroup } from '../../child-processes/signal-group.js';
import { spawnGroup } from '../../child-processes/spawn-group.js';
import { BoundedOutput } from './bounded-output.js';

export interface ArgvRun {
  program: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** 0 or undefined: no own limit (the signal still stops it). */
  timeoutMs?: number | undefined;
  purpose?: GroupPurpose | undefined;
  /** The OS sandbox it runs in; none: unsandboxed. */
  sandbox?: SandboxProfile | undefined;
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
/** After the program exits, how long its pipes may keep draining (a process that left its group may hold them). */
const DRAIN_MS = 1000;

/**
 * Runs a program with its arguments and NO shell: each argument reaches the
 * program as one argv entry, so `; rm -rf x` or `$(…)` in an argument is just
 * text. It runs in its own process group so that stopping it also stops what
 * it started; what it leaves running when it exits is killed, and the group
 * dies with Legion however Legion ends.
 */
export function runArgv(run: ArgvRun): Promise<ArgvOutcome> {
  return new Promise((resolve) => {
    const stdout = new BoundedOutput();
    const stderr = new BoundedOutput();
    let stopped: ArgvOutcome['stopped'];
    let killTimer: NodeJS.Timeout | undefined;
    let timeoutTimer: NodeJS.Timeout | undefined;
    const sent = new Set<NodeJS.Signals>();
    const child = spawnGroup(run.program, run.args, {
      cwd: run.cwd,
      env: run.env,
      command: [run.program, ...run.args].join(' '),
      purpose: run.purpose,
      sandbox: run.sandbox,
    });
    const stop = (reason: 'timeout' | 'aborted'): void => {
      // The group is signalled even if the program itself has exited: a background child may still hold its output open.
      if (stopped) return;
      stopped = reason;
      sent.add('SIGTERM');
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => {
        sent.add('SIGKILL');
        signalGroup(child.pid, 'SIGKILL');
      }, KILL_GRACE_MS);
      killTimer.unref();
    };
    const onAbort = (): void => stop('aborted');
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = (outcome: Pick<ArgvOutcome, 'exitCode' | 'exitSignal' | 'startError'>): void => {
      clearTimeout(drainTimer);
      clearTimeout(killTimer);
      clearTimeout(timeoutTimer);
      run.signal.removeEventListener('abort', onAbort);
      resolve({ ...outcome, stdout: stdout.text(), stderr: stderr.text(), stopped });
    };
    child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', (error: NodeJS.ErrnoException) => {
      // 'error' without a pid means it never started; a later 'close' will not come.
      if (child.pid === undefined) finish({ exitCode: null, exitSignal: null, startError: describeStartError(run.program, error) });
    });
    child.once('exit', () => {
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, DRAIN_MS);
      drainTimer.unref();
    });
    child.once('close', (code, signal) => {
      const exit = exitAsSent(code, signal, sent);
      finish({ exitCode: exit.code, exitSignal: exit.signal });
    });
    if (run.signal.aborted) stop('aborted');
    else run.signal.addEventListener('abort', onAbort, { once: true });
    if (run.timeoutMs) timeoutTimer = setTimeout(() => stop('timeout'), run.timeoutMs);
  });
}

function describeStartError(program: string, error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return `"${program}" was not found (not on PATH, or the working directory does not exist)`;
  if (error.code === 'EACCES') return `"${program}" is not executable`;
  return `"${program}" could not be started: ${error.message}`;
}
