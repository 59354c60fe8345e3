import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who a process is, in a form that survives neither a pid reused after a
 * restart (a container's Legion is pid 1 every time) nor a new host name (a
 * container gets one each run): the pid plus, on Linux, the process's start
 * time, the kernel's boot id and the pid namespace it lives in.
 */
export interface ProcessIdentity {
  pid: number;
  host: string;
  /** Field 22 of /proc/<pid>/stat: clock ticks after boot; absent off Linux. */
  startTime?: string | undefined;
  /** /proc/sys/kernel/random/boot_id: changes at every boot, shared by containers on one kernel. */
  bootId?: string | undefined;
  /** The pid namespace: pids are comparable only inside one. */
  pidNamespace?: string | undefined;
}

export type ProcessState = 'alive' | 'dead' | 'unknown';

let self: ProcessIdentity | undefined;

export function currentProcessIdentity(): ProcessIdentity {
  self ??= {
    pid: process.pid,
    host: hostname(),
    startTime: processStartTime(process.pid),
    bootId: readTrimmed('/proc/sys/kernel/random/boot_id'),
    pidNamespace: readLink('/proc/self/ns/pid'),
  };
  return self;
}

/** The start time of a live process, or undefined when it is gone or the system has no /proc. */
export function processStartTime(pid: number): string | undefined {
  const stat = readTrimmed(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces or ')': count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19];
}

/**
 * Whether the process `other` names is still running. `unknown` when this
 * process cannot tell — another machine, another kernel, another pid
 * namespace — so a caller falls back on something else (a lease's expiry).
 */
export function processState(other: ProcessIdentity): ProcessState {
  const me = currentProcessIdentity();
  if (other.bootId !== undefined && me.bootId !== undefined) {
    // Another kernel: another machine sharing the folder, or this one since rebooted.
    if (other.bootId !== me.bootId) return 'unknown';
    if (other.pidNamespace !== undefined && me.pidNamespace !== undefined && other.pidNamespace !== me.pidNamespace) return 'unknown';
    if (other.startTime === undefined) return pidState(other.pid);
    // A different start time is another process that got the same pid (ours, after a restart, included).
    return processStartTime(other.pid) === other.startTime ? 'alive' : 'dead';
  }
  // Written where there is no /proc, or by an older Legion: pids are all there is to go on.
  if (other.host !== me.host) return 'unknown';
  if (other.pid === me.pid) return 'alive';
  return pidState(other.pid);
}

function pidState(pid: number): ProcessState {
  try {
    process.kill(pid, 0);
    return 'alive';
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'ESRCH' ? 'dead' : 'alive';
  }
}

function readTrimmed(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
