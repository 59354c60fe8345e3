import type { ChildProcess } from 'node:child_process';
import { childProcessModule } from './node-child-process.js';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { Writable } from 'node:stream';
import { containedArgv, killMarked, markerVariable, newMarker } from './containment.js';
import { sandboxFlags, type SandboxProfile } from './sandbox-profile.js';
import { bridgedArgv } from './network-bridge.js';
import { readySupervisor, superviseGroup, supervisorAvailable } from './group-supervisor.js';
import { recordGroup, type GroupPurpose } from './process-records.js';
import { signalGroup } from './signal-group.js';

export interface GroupSpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Shown in the record a later process reads ("npm test", or the argv). */
  command: string;
  /** The tool call it runs for: recorded, so that a crash's leftovers can be found and ended. */
  purpose?: GroupPurpose | undefined;
  /**
   * Run it in the OS sandbox, confined to this profile (sandbox-profile.ts), in the same bwrap run
   * that contains it. The caller has checked `sandboxSupport()`: without bwrap this throws rather
   * than run the command unconfined.
   */
  sandbox?: SandboxProfile | undefined;
}

/**
 * Spawns a program as the leader of a new process group, stdin closed and
 * output piped, and makes the group die with Legion however Legion ends (see
 * `superviseGroup`). It runs inside the strongest containment available
 * (`containment()`: a PID namespace of its own where bubblewrap runs); when the
 * leader exits, whatever it left running is killed, so nothing outlives the
 * call that started it.
 */
export function spawnGroup(program: string, args: readonly string[], options: GroupSpawnOptions): ChildProcess {
  // Before the spawn: a Legion killed while its supervisor starts would otherwise leave an unannounced group.
  const supervisor = readySupervisor();
  const resolves = resolvesToProgram(program, options);
  const gated = supervisor !== undefined && supervisorAvailable() && resolves;
  // A program that does not resolve is spawned bare, for the system's own start error; there is nothing to contain.
  // With an allow-list the command starts behind the bridge to Legion's proxy, inside the same sandbox.
  const inner = options.sandbox?.proxy ? bridgedArgv(program, args, options.sandbox.proxy) : { program, args };
  const run = resolves
    ? containedArgv(inner.program, inner.args, options.sandbox ? sandboxFlags(options.sandbox) : undefined)
    : { program, args: [...args] };
  const marker = resolves ? newMarker() : undefined;
  // In the sandbox only its private /tmp is writable of the usual temporary folders.
  const confined = options.sandbox ? { ...options.env, TMPDIR: '/tmp' } : options.env;
  const env = marker === undefined ? confined : { ...confined, [markerVariable(marker)]: '1' };
  // Gated, the program starts only once its group is announced: a Legion killed in between leaves nothing running.
  const child = gated
    ? childProcessModule().spawn('/bin/sh', ['-c', GATE_SCRIPT, 'legion-gate', run.program, ...run.args], {
        cwd: options.cwd,
        env,
        detached: true,
        shell: false,
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      })
    : childProcessModule().spawn(run.program, run.args, {
        cwd: options.cwd,
        env,
        detached: true,
        shell: false,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
  const pgid = child.pid;
  if (pgid === undefined) return child;
  const gate = gated ? (child.stdio[3] as Writable | null) : null;
  gate?.on('error', () => undefined);
  const forget = options.purpose ? recordGroup(options.purpose, { pgid, command: options.command, supervisor, marker }) : () => undefined;
  const release = superviseGroup(pgid, marker, () => gate?.end('go\n'));
  child.once('exit', () => {
    // In a PID namespace the kernel has already ended what the command left; elsewhere the group and the marked.
    signalGroup(pgid, 'SIGKILL');
    if (marker !== undefined) killMarked([marker]);
    release();
    forget();
  });
  return child;
}

/**
 * Waits for "go" on fd 3, then becomes the program (same pid, same group).
 * Without "go" (Legion died first) it exits without running anything.
 */
const GATE_SCRIPT = 'read -r go <&3 || exit 125; exec 3<&-; exec "$@"';

/**
 * Whether `program` names an executable file (as execvp would find it). When it
 * does not, it is spawned directly so that the caller gets the system's own
 * start error (ENOENT, EACCES) instead of a shell's exit code.
 */
function resolvesToProgram(program: string, options: Pick<GroupSpawnOptions, 'cwd' | 'env'>): boolean {
  const candidates = program.includes('/')
    ? [isAbsolute(program) ? program : join(options.cwd, program)]
    : (options.env.PATH ?? '')
        .split(delimiter)
        .filter((dir) => dir !== '')
        .map((dir) => join(isAbsolute(dir) ? dir : join(options.cwd, dir), program));
  return candidates.some((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}
