/** Sends a signal to a whole process group (the one a detached child leads); a group already gone is not an error. */
export function signalGroup(pgid: number | undefined, signal: NodeJS.Signals | 0): boolean {
  if (pgid === undefined) return false;
  try {
    // A negative pid addresses the process group.
    process.kill(-pgid, signal);
    return true;
  } catch {
    // ESRCH: the group is gone.
    return false;
  }
}
