import { accessSync, constants, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { constants as osConstants } from 'node:os';
import { childProcessModule } from './node-child-process.js';

/**
 * How the processes of a command are kept from outliving it (and Legion):
 * - `pid-namespace`: the command runs in a PID namespace of its own (bubblewrap). When the
 *   command's shell exits, or Legion ends however it ends (bwrap's --die-with-parent covers
 *   SIGKILL), the namespace's init dies and the kernel kills every process in it: `setsid`,
 *   double forks, `nohup … &` and `disown` cannot leave it.
 * - `process-group+environment`: where bubblewrap cannot run (no user namespaces) but /proc
 *   can be read, the group is killed and so is every process whose environment still carries
 *   the command's marker variable. A process that clears its environment (`env -i`) escapes.
 * - `process-group`: elsewhere (macOS), the process group alone: `setsid` escapes it.
 */
export type ContainmentKind = 'pid-namespace' | 'process-group+environment' | 'process-group';

export interface Containment {
  kind: ContainmentKind;
  /** Why this kind (what was found, or why the stronger one is not available): shown by `legion doctor`. */
  reason: string;
  /** Why bubblewrap is not used, without the consequence `reason` adds (the sandbox's explanation: it needs bubblewrap too). */
  withoutBwrap?: string;
  /** Absolute paths of bwrap and env, with `pid-namespace`. */
  bwrap?: string;
  env?: string;
}

/** Set to `process-group` (e.g. where bubblewrap misbehaves) to use the weaker containment; tests use it to prove both. */
export const CONTAINMENT_VARIABLE = 'LEGION_CONTAINMENT';

/**
 * The bubblewrap program to use instead of the one found in the system's folders: Legion's own
 * environment, which no command it runs can change. Tests point it at a missing path to prove
 * what happens on a machine without bubblewrap (the weaker containment; no sandbox).
 */
export const BWRAP_VARIABLE = 'LEGION_BWRAP';

/**
 * The filesystem is the host's, unchanged (bound whole, /dev and a /proc of the new namespace on
 * top): only the lifetime is contained here. An OS sandbox for model commands adds its own
 * restrictions to this same list.
 */
const NAMESPACE_FLAGS = [
  '--unshare-pid',
  '--die-with-parent',
  '--bind',
  '/',
  '/',
  '--dev-bind',
  '/dev',
  '/dev',
  '--proc',
  '/proc',
] as const;

/**
 * Runs in front of bwrap. bwrap would die of the SIGTERM a graceful stop sends the group, and the
 * kernel would then SIGKILL the command at once: ignored here, bwrap survives it, and env puts
 * SIGTERM back to default for the command, which gets it (and its grace) as it would unwrapped.
 */
export const IGNORE_TERM_THEN_EXEC = 'trap \'\' TERM; exec "$@"';

let detected: Containment | undefined;

/** The containment this process uses, detected once (a few milliseconds: one bwrap run) and cached. */
export function containment(): Containment {
  detected ??= detect();
  return detected;
}

function detect(): Containment {
  if (process.platform === 'win32') return { kind: 'process-group', reason: 'Windows: Job objects are not used' };
  const proc = process.platform === 'linux' && canRead('/proc/self/environ');
  const weaker = (reason: string): Containment =>
    proc
      ? {
          kind: 'process-group+environment',
          reason: `${reason}; processes are found by a marker in their environment, which one that clears it (env -i) escapes`,
          withoutBwrap: reason,
        }
      : {
          kind: 'process-group',
          reason: `${reason}; a process that leaves its group (setsid) can outlive the command`,
          withoutBwrap: reason,
        };
  if (process.env[CONTAINMENT_VARIABLE] === 'process-group') return weaker(`${CONTAINMENT_VARIABLE}=process-group`);
  if (process.platform !== 'linux') return weaker(`no PID namespaces on ${process.platform}`);
  const chosen = process.env[BWRAP_VARIABLE];
  const bwrap = chosen ? (isExecutableFile(chosen) ? chosen : undefined) : inSystemDirectory('bwrap');
  if (!bwrap)
    return weaker(
      chosen
        ? `${BWRAP_VARIABLE}=${chosen} is not an executable file`
        : `bubblewrap (bwrap) is not installed in ${SYSTEM_DIRECTORIES.join(', ')}`,
    );
  const env = inSystemDirectory('env');
  if (!env) return weaker(`no env program in ${SYSTEM_DIRECTORIES.join(', ')}`);
  const probe = childProcessModule().spawnSync(
    '/bin/sh',
    ['-c', IGNORE_TERM_THEN_EXEC, 'legion-probe', bwrap, ...NAMESPACE_FLAGS, env, '--default-signal=TERM', 'true'],
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 },
  );
  if (probe.status !== 0) {
    const said = probe.error?.message ?? probe.stderr?.toString().trim().split('\n')[0] ?? '';
    return weaker(
      `bwrap cannot make a PID namespace here (${said || `exit ${probe.status ?? probe.signal}`}; are user namespaces disabled?)`,
    );
  }
  return { kind: 'pid-namespace', reason: `${bwrap} --unshare-pid --die-with-parent`, bwrap, env };
}

/**
 * The program and arguments that run `program args` inside the containment (the same pair where
 * there is nothing to wrap). With `sandbox` (bwrap's flags of an OS sandbox, `sandboxFlags`), the
 * same bwrap run confines the command too: its flags replace the host's filesystem bound whole.
 * A sandbox needs the PID namespace: asked for without one, this throws (the caller checks
 * `sandboxSupport()` first, and a command meant to be confined must never run unconfined).
 */
export function containedArgv(program: string, args: readonly string[], sandbox?: readonly string[]): { program: string; args: string[] } {
  const used = containment();
  if (used.kind !== 'pid-namespace') {
    if (sandbox) throw new Error(`a sandboxed command needs bubblewrap, and it cannot run here: ${used.reason}`);
    return { program, args: [...args] };
  }
  return {
    program: '/bin/sh',
    args: [
      '-c',
      IGNORE_TERM_THEN_EXEC,
      'legion-contain',
      used.bwrap!,
      ...(sandbox ? [...SANDBOX_NAMESPACE_FLAGS, ...sandbox] : NAMESPACE_FLAGS),
      used.env!,
      '--default-signal=TERM',
      program,
      ...args,
    ],
  };
}

/** The lifetime part of `NAMESPACE_FLAGS`, before a sandbox's own filesystem (sandbox-profile.ts). */
const SANDBOX_NAMESPACE_FLAGS = ['--unshare-pid', '--die-with-parent'] as const;

/**
 * Runs `true` in bwrap with `flags` (a sandbox's), as a command would run: the probe `legion
 * doctor` and the sandbox's detection use. Undefined when it ran, else what bwrap said.
 */
export function probeBwrap(flags: readonly string[]): string | undefined {
  const used = containment();
  if (used.kind !== 'pid-namespace') return used.withoutBwrap ?? used.reason;
  const probe = childProcessModule().spawnSync(
    '/bin/sh',
    [
      '-c',
      IGNORE_TERM_THEN_EXEC,
      'legion-probe',
      used.bwrap!,
      ...SANDBOX_NAMESPACE_FLAGS,
      ...flags,
      used.env!,
      '--default-signal=TERM',
      'true',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 },
  );
  if (probe.status === 0) return undefined;
  const said = probe.error?.message ?? probe.stderr?.toString().trim().split('\n')[0] ?? '';
  return said || `exit ${probe.status ?? probe.signal}`;
}

/**
 * A fresh marker for one command's processes where they are found by their environment: the
 * variable's name carries it, so that a command's descendants keep every ancestor's marker
 * (a Legion run inside a command adds its own beside it).
 */
export function newMarker(): string | undefined {
  return containment().kind === 'process-group+environment' ? randomBytes(9).toString('hex') : undefined;
}

export function markerVariable(marker: string): string {
  return `LEGION_PROCESS_${marker}`;
}

/**
 * SIGKILLs every process whose environment carries one of the markers, again while a sweep still
 * finds one (a process may fork while it runs). Returns how many were killed.
 */
export function killMarked(markers: Iterable<string>): number {
  const entries = [...markers].map((marker) => `${markerVariable(marker)}=1\0`);
  if (entries.length === 0) return 0;
  // An entry starts the block or follows another's NUL.
  const first = entries.map((entry) => Buffer.from(entry));
  const later = entries.map((entry) => Buffer.from(`\0${entry}`));
  let killed = 0;
  for (let sweep = 0; sweep < 5; sweep++) {
    let found = 0;
    for (const pid of listPids()) {
      if (pid === process.pid) continue;
      const environ = readEnviron(pid);
      if (!environ || !first.some((entry, index) => environ.indexOf(entry) === 0 || environ.includes(later[index]!))) continue;
      try {
        process.kill(pid, 'SIGKILL');
        found++;
      } catch {
        // gone, or not ours
      }
    }
    killed += found;
    if (found === 0) break;
  }
  return killed;
}

function listPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

function readEnviron(pid: number): Buffer | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`);
  } catch {
    return undefined;
  }
}

function canRead(file: string): boolean {
  try {
    readFileSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where bwrap and env are looked for: the system's directories only, never PATH, which may name a
 * folder a command can write (a `bwrap` planted there would then wrap every later command).
 */
const SYSTEM_DIRECTORIES = ['/usr/bin', '/bin', '/usr/local/bin', '/run/current-system/sw/bin'];

function inSystemDirectory(name: string): string | undefined {
  return SYSTEM_DIRECTORIES.map((dir) => join(dir, name)).find(isExecutableFile);
}

function isExecutableFile(candidate: string): boolean {
  try {
    accessSync(candidate, constants.X_OK);
    return statSync(candidate).isFile();
  } catch {
    return false;
  }
}

/**
 * In a PID namespace the command's death by signal N reaches Legion as bwrap's exit code 128+N.
 * When Legion itself sent N (a timeout, a cancel, process_stop), it is reported as the signal, as
 * it was without the namespace; a command that ends itself that way keeps its exit code, as a
 * shell would report it.
 */
export function exitAsSent(
  code: number | null,
  signal: NodeJS.Signals | null,
  sent: ReadonlySet<NodeJS.Signals>,
): { code: number | null; signal: NodeJS.Signals | null } {
  if (signal !== null || code === null || code <= 128 || containment().kind !== 'pid-namespace') return { code, signal };
  const name = (Object.keys(osConstants.signals) as NodeJS.Signals[]).find((candidate) => osConstants.signals[candidate] === code - 128);
  return name !== undefined && sent.has(name) ? { code: null, signal: name } : { code, signal };
}
