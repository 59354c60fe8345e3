import { spawn, type ChildProcess } from 'node:child_process';
import { readySupervisor, superviseGroup } from './group-supervisor.js';
import { recordGroup, type GroupPurpose } from './process-records.js';
import { signalGroup } from './signal-group.js';

export interface GroupSpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Shown in the record a later process reads ("npm test", or the argv). */
  command: string;
  /** The tool call it runs for: recorded, so that a crash's leftovers can be found and ended. */
  purpose?: GroupPurpose | undefined;
}

/**
 * Spawns a program as the leader of a new process group, stdin closed and
 * output piped, and makes the group die with Legion however Legion ends (see
 * `superviseGroup`). When the leader exits, whatever it left running in its
 * group is killed, so nothing outlives the call that started it.
 */
export function spawnGroup(program: string, args: readonly string[], options: GroupSpawnOptions): ChildProcess {
  // Before the spawn: a Legion killed while its supervisor starts would otherwise leave an unannounced group.
  const supervisor = readySupervisor();
  const child = spawn(program, [...args], { cwd: options.cwd, env: options.env, detached: true, shell: false, stdio: ['ignore', 'pipe', 'pipe'] });
  const pgid = child.pid;
  if (pgid === undefined) return child;
  const release = superviseGroup(pgid);
  const forget = options.purpose ? recordGroup(options.purpose, { pgid, command: options.command, supervisor }) : () => undefined;
  child.once('exit', () => {
    signalGroup(pgid, 'SIGKILL');
    release();
    forget();
  });
  return child;
}
