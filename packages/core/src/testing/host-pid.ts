import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * What a test's shell command writes after a pid (`echo "$! ${PID_NAMESPACE}" > bg.pid`): the PID
 * namespace that pid counts in. Legion runs commands in a namespace of their own where it can, so a
 * command's `$$` and `$!` are not the host's pids.
 */
export const PID_NAMESPACE = '$(readlink /proc/self/ns/pid 2>/dev/null)';

/**
 * The host's pid of a process a command recorded as "PID pid:[INODE]", or undefined when no such
 * process runs any more. A bare "PID" (or a namespace this process shares) is taken as it is.
 */
export function hostPid(recorded: string): number | undefined {
  const match = /^(\d+)(?:\s+(pid:\[\d+\]))?\s*$/.exec(recorded.trim());
  if (!match) throw new Error(`not a recorded pid: ${JSON.stringify(recorded)}`);
  const pid = Number(match[1]);
  const namespace = match[2];
  if (namespace === undefined || namespace === readNamespace('self')) return pid;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || readNamespace(name) !== namespace) continue;
    // "NSpid:" lists the pid in each namespace from the host's down to the process's own.
    const nsPids = /^NSpid:\s*(.*)$/m.exec(readStatus(name))?.[1]?.trim().split(/\s+/);
    if (nsPids !== undefined && Number(nsPids[nsPids.length - 1]) === pid) return Number(name);
  }
  return undefined;
}

function readNamespace(pid: string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

function readStatus(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}
