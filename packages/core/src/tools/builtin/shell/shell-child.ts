import type { ChildProcess } from 'node:child_process';
import type { GroupPurpose } from '../../child-processes/process-records.js';
import type { SandboxProfile } from '../../child-processes/sandbox-profile.js';
import { exitAsSent } from '../../child-processes/containment.js';
import { signalGroup } from '../../child-processes/signal-group.js';
import { spawnGroup } from '../../child-processes/spawn-group.js';
import { OutputCapture } from './output-capture.js';

export interface ShellExit {
  /** The shell's exit code, or null when a signal ended it or it never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it could not start (e.g. the working folder vanished). */
  startError?: string;
}

/** After the shell exits, how long its pipes may keep draining before they are closed anyway. */
const DRAIN_MS = 1000;

/**
 * One `/bin/sh -c` command in a process group of its own, so that stopping it
 * stops everything it started. Output goes to bounded head-and-tail captures;
 * stdin is closed, so a command that waits for input gets end-of-file instead of hanging.
 */
export class ShellChild {
  readonly stdout: OutputCapture;
  readonly stderr: OutputCapture;
  /** Settles once the shell has exited and its output is read (or given up on). */
  readonly exited: Promise<ShellExit>;
  private readonly child: ChildProcess;
  private exit: ShellExit | undefined;
  private readonly dataListeners = new Set<() => void>();
  /** Signals Legion sent the group: a contained command's death by one is reported as that signal. */
  private readonly sent = new Set<NodeJS.Signals>();

  constructor(
    command: string,
    options: {
      cwd: string;
      env: NodeJS.ProcessEnv;
      limitBytes: number;
      purpose?: GroupPurpose | undefined;
      /** The OS sandbox it runs in; none: unsandboxed. */
      sandbox?: SandboxProfile | undefined;
    },
  ) {
    this.stdout = new OutputCapture(options.limitBytes);
    this.stderr = new OutputCapture(options.limitBytes);
    // Its group dies with Legion, however Legion ends, and with the shell when the shell exits.
    this.child = spawnGroup('/bin/sh', ['-c', command], {
      cwd: options.cwd,
      env: options.env,
      command,
      purpose: options.purpose,
      sandbox: options.sandbox,
    });
    this.child.stdout!.on('data', (chunk: Buffer) => this.onData(this.stdout, chunk));
    this.child.stderr!.on('data', (chunk: Buffer) => this.onData(this.stderr, chunk));
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => {
        this.exit ??= { code: null, signal: null, startError: error.message };
        resolve(this.exit);
      });
      this.child.once('exit', (code, signal) => {
        this.exit = exitAsSent(code, signal, this.sent);
        // spawnGroup has ended what the shell left running in its group; a process that left the group may still hold the pipes.
        const drain = setTimeout(() => {
          this.child.stdout?.destroy();
          this.child.stderr?.destroy();
        }, DRAIN_MS);
        drain.unref();
        this.child.once('close', () => {
          clearTimeout(drain);
          resolve(this.exit!);
        });
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Set once the shell has exited; output may still be draining. */
  get exitStatus(): ShellExit | undefined {
    return this.exit;
  }

  /** Calls `listener` on every chunk of output; returns the unsubscribe function. */
  onOutput(listener: () => void): () => void {
    this.dataListeners.add(listener);
    return () => this.dataListeners.delete(listener);
  }

  /** Sends a signal to the whole process group. */
  signal(signal: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    this.sent.add(signal);
    signalGroup(this.child.pid, signal);
  }

  /** SIGTERM to the group, then SIGKILL if it has not exited within `graceMs`. */
  async terminate(graceMs: number): Promise<ShellExit> {
    if (!this.exit) {
      this.signal('SIGTERM');
      const escalate = setTimeout(() => this.signal('SIGKILL'), graceMs);
      escalate.unref();
      await this.exited.finally(() => clearTimeout(escalate));
    }
    return this.exited;
  }

  private onData(capture: OutputCapture, chunk: Buffer): void {
    capture.push(chunk);
    for (const listener of this.dataListeners) listener();
  }
}

/** "exit code 2", "killed by SIGTERM", or why it did not start. */
export function describeExit(exit: ShellExit): string {
  if (exit.startError) return `could not start: ${exit.startError}`;
  if (exit.signal) return `killed by ${exit.signal}`;
  return `exit code ${exit.code ?? 'unknown'}`;
}
