import { commandEnvironment } from '../../child-env.js';
import { redactSecrets } from '../../redact.js';
import type { GroupPurpose } from '../../child-processes/process-records.js';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../child-processes/sandbox.js';
import type { SandboxProfile } from '../../child-processes/sandbox-profile.js';
import { describeExit, ShellChild, type ShellExit } from './shell-child.js';
import { DEFAULT_KILL_GRACE_MS, DEFAULT_OUTPUT_LIMIT_BYTES, type ShellOptions } from './shell-options.js';
import { formatStreams } from './shell-output.js';

export interface ProcessRegistryOptions extends ShellOptions {
  /** Background processes that may run at once (default 8). */
  maxRunning?: number;
}

export interface BackgroundProcess {
  id: string;
  command: string;
  /** Folder it runs in, relative to the workspace root. */
  cwd: string;
  /** The participant that started it. */
  owner: string;
  /** The session it was started in: an agent sees and stops only what it started there (process-tools.ts). */
  sessionId?: string | undefined;
  startedAt: string;
  pid: number | undefined;
}

export interface ProcessStatus {
  process: BackgroundProcess;
  running: boolean;
  exit?: ShellExit;
  /** Output since the previous poll, stdout and stderr labelled, secrets redacted. */
  output: string;
}

const DEFAULT_MAX_RUNNING = 8;
/** Finished processes remembered for a last poll; older ones are forgotten first. */
const MAX_FINISHED = 32;

interface Entry {
  info: BackgroundProcess;
  child: ShellChild;
}

/**
 * The background processes agents started (servers, watchers, long builds),
 * each in its own process group. Polls return only what is new; `dispose()`
 * kills them all, and they die with Legion however it ends.
 */
export class ProcessRegistry {
  private readonly entries = new Map<string, Entry>();
  private nextId = 1;
  readonly env: NodeJS.ProcessEnv;
  private readonly limitBytes: number;
  private readonly graceMs: number;
  private readonly maxRunning: number;
  /** The sandbox settings now (process_start reads them at each start). */
  readonly sandbox: () => SandboxSettings;

  constructor(options: ProcessRegistryOptions = {}) {
    this.env = options.env ?? commandEnvironment(process.env);
    this.limitBytes = options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT_BYTES;
    this.graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.maxRunning = options.maxRunning ?? DEFAULT_MAX_RUNNING;
    this.sandbox = options.sandbox ?? (() => DEFAULT_SANDBOX_SETTINGS);
  }

  /** Starts a command in `cwd` (an absolute folder already checked to be in the workspace). */
  start(request: {
    command: string;
    cwd: string;
    displayCwd: string;
    owner: string;
    sessionId?: string | undefined;
    purpose?: GroupPurpose | undefined;
    /** The OS sandbox it runs in (`sandboxFor`); none: unsandboxed. */
    sandbox?: SandboxProfile | undefined;
  }): BackgroundProcess | { error: string } {
    const running = this.list().filter((entry) => entry.running);
    if (running.length >= this.maxRunning) {
      // Only the starter's own are named: the others are not its to stop (process-tools.ts).
      const own = running
        .filter((entry) => entry.process.owner === request.owner && entry.process.sessionId === request.sessionId)
        .map((entry) => entry.process.id);
      const hint = own.length > 0 ? `stop one of yours first (${own.join(', ')})` : 'none of them is yours; ask the user to stop one';
      return { error: `${running.length} background processes are running (the limit): ${hint}.` };
    }
    this.forgetOldFinished();
    const child = new ShellChild(request.command, {
      cwd: request.cwd,
      env: this.env,
      limitBytes: this.limitBytes,
      purpose: request.purpose,
      sandbox: request.sandbox,
    });
    const info: BackgroundProcess = {
      id: `proc-${this.nextId++}`,
      command: request.command,
      cwd: request.displayCwd,
      owner: request.owner,
      ...(request.sessionId !== undefined ? { sessionId: request.sessionId } : {}),
      startedAt: new Date().toISOString(),
      pid: child.pid,
    };
    this.entries.set(info.id, { info, child });
    return info;
  }

  /** Every known process with whether it still runs, oldest first. */
  list(): Array<{ process: BackgroundProcess; running: boolean; exit?: ShellExit }> {
    return [...this.entries.values()].map(({ info, child }) => ({
      process: info,
      running: !child.exitStatus,
      ...(child.exitStatus ? { exit: child.exitStatus } : {}),
    }));
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /**
   * Output since the previous poll. With `waitMs`, waits up to that long for
   * new output or the exit first, so a model need not poll in a tight loop.
   */
  async poll(id: string, options: { waitMs?: number; signal?: AbortSignal } = {}): Promise<ProcessStatus | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    const { child } = entry;
    if (options.waitMs && !child.exitStatus && child.stdout.totalBytes === 0 && child.stderr.totalBytes === 0) {
      await waitForActivity(child, options.waitMs, options.signal);
    }
    // Once it exited, let the pipes drain so that the last poll has the last words.
    if (child.exitStatus) await child.exited;
    return this.status(entry);
  }

  /** Stops a process and its group (SIGTERM, then SIGKILL), returns its last output and forgets it. */
  async stop(id: string): Promise<ProcessStatus | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    await entry.child.terminate(this.graceMs);
    this.entries.delete(id);
    return this.status(entry);
  }

  /** Kills every process group at once (SIGKILL, no grace) and waits for them to be gone. */
  async dispose(): Promise<void> {
    const children = [...this.entries.values()].map((entry) => entry.child);
    this.entries.clear();
    for (const child of children) if (!child.exitStatus) child.signal('SIGKILL');
    await Promise.all(children.map((child) => child.exited));
  }

  private status(entry: Entry): ProcessStatus {
    const redact = (text: string): string => redactSecrets(text, this.env);
    const output = formatStreams(entry.child.stdout.take(redact), entry.child.stderr.take(redact));
    const exit = entry.child.exitStatus;
    return { process: entry.info, running: !exit, ...(exit ? { exit } : {}), output };
  }

  private forgetOldFinished(): void {
    const finished = [...this.entries.values()].filter((entry) => entry.child.exitStatus);
    for (const entry of finished.slice(0, Math.max(0, finished.length - MAX_FINISHED + 1))) this.entries.delete(entry.info.id);
  }
}

/** "running (pid 123)" or "exited: exit code 0". */
export function describeProcessState(status: { running: boolean; exit?: ShellExit; process: BackgroundProcess }): string {
  return status.running
    ? `running (pid ${status.process.pid ?? '?'})`
    : `finished, ${status.exit ? describeExit(status.exit) : 'unknown exit'}`;
}

function waitForActivity(child: ShellChild, waitMs: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, waitMs);
    const unsubscribe = child.onOutput(done);
    signal?.addEventListener('abort', done, { once: true });
    void child.exited.then(done);
  });
}
