import type { ChildProcess } from 'node:child_process';
import { childProcessModule } from './node-child-process.js';
import { onExit } from 'signal-exit';
import { killMarked } from './containment.js';
import { signalGroup } from './signal-group.js';

/**
 * The supervisor: a tiny /bin/sh in a session of its own that reads "add N" /
 * "del N" lines from a pipe whose other end only this process holds. However
 * this process ends — exit, a signal, SIGKILL, a crash — the kernel closes the
 * pipe; the supervisor then sends SIGTERM to every group still listed, and
 * SIGKILL to those still alive a second later. Its own session keeps terminal
 * signals (Ctrl-C, a closed terminal's SIGHUP) from reaching it.
 */
const SUPERVISOR_SCRIPT = `
groups=' '
while read -r op pgid marker; do
  case "$op" in
    add) groups="$groups$pgid "; [ -n "$marker" ] && markers="$markers $pgid:$marker" ;;
    del)
      kept=' '; for g in $groups; do [ "$g" = "$pgid" ] || kept="$kept$g "; done; groups=$kept
      keptm=; for m in $markers; do [ "\${m%%:*}" = "$pgid" ] || keptm="$keptm $m"; done; markers=$keptm ;;
  esac
done
[ "$groups" = ' ' ] && exit 0
sweep() {
  [ -n "$markers" ] || return 0
  set --; for m in $markers; do set -- "$@" -e "LEGION_PROCESS_\${m#*:}=1"; done
  for f in $(grep -lsxFz "$@" /proc/[0-9]*/environ); do p=\${f#/proc/}; kill -s KILL "\${p%/environ}" 2>/dev/null; done
}
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
i=0
while [ $i -lt 10 ]; do
  alive=
  for g in $groups; do kill -s 0 -- "-$g" 2>/dev/null && alive=1; done
  [ -z "$alive" ] && { sweep; sweep; exit 0; }
  sleep 0.1
  i=$((i + 1))
done
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
# What left its group and still carries a marker (process-group+environment containment), twice: one may have forked meanwhile.
sweep; sweep
`;

/** Groups this process started that are still alive: killed on exit and on a fatal signal, in process. */
const liveGroups = new Map<number, string | undefined>();
let supervisor: ChildProcess | undefined;
let supervisorFailed = false;
/** Supervisors started so far: one that keeps dying is given up on rather than restarted forever. */
let supervisorStarts = 0;
const MAX_SUPERVISOR_STARTS = 5;
let hooksInstalled = false;

/**
 * Registers a process group to die with this process, by every route: the
 * 'exit' event, SIGHUP/SIGTERM/SIGINT when nothing else handles them (as with
 * a second Ctrl-C), and the supervisor for SIGKILL and crashes. Returns the
 * function that unregisters it once the group is gone.
 */
/**
 * `announced` runs once the supervisor's pipe holds the line (or at once where
 * there is no supervisor): from then on a SIGKILL of this process ends the group.
 */
export function superviseGroup(pgid: number, marker: string | undefined, announced?: () => void): () => void {
  installHooks();
  liveGroups.set(pgid, marker);
  send(`add ${pgid}${marker === undefined ? '' : ` ${marker}`}\n`, announced);
  return () => {
    if (liveGroups.delete(pgid)) send(`del ${pgid}\n`);
  };
}

/**
 * Starts the supervisor (if it is not running) and returns its pid, undefined
 * where it cannot run. Called before a group is spawned: the group must be
 * announced the moment its pid is known, not after the supervisor's own start.
 */
export function readySupervisor(): number | undefined {
  installHooks();
  return startSupervisor()?.pid;
}

/** SIGKILL to every live group (and what carries its marker), synchronously: what the exit hooks do. */
export function killSupervisedGroups(): void {
  for (const pgid of liveGroups.keys()) signalGroup(pgid, 'SIGKILL');
  const markers = [...liveGroups.values()].filter((marker) => marker !== undefined);
  if (markers.length > 0) killMarked(markers);
  liveGroups.clear();
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killSupervisedGroups);
  // Runs only when no other listener handles the signal, then re-raises it, so the process still ends by it.
  onExit(() => killSupervisedGroups());
}

/** Whether groups can be announced to a supervisor process here (not on Windows, not after it failed). */
export function supervisorAvailable(): boolean {
  return startSupervisor()?.stdin?.destroyed === false;
}

function send(line: string, written?: () => void): void {
  const stdin = startSupervisor()?.stdin;
  if (!stdin || stdin.destroyed) {
    written?.();
    return;
  }
  // The callback runs once the line is in the kernel's pipe, where the supervisor reads it even if this process dies.
  stdin.write(line, () => written?.());
}

function startSupervisor(): ChildProcess | undefined {
  if (supervisor || supervisorFailed || process.platform === 'win32') return supervisor;
  if (++supervisorStarts > MAX_SUPERVISOR_STARTS) {
    supervisorFailed = true;
    return undefined;
  }
  try {
    const child = childProcessModule().spawn('/bin/sh', ['-c', SUPERVISOR_SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    // Neither the child nor its pipe may keep this process alive.
    child.unref();
    (child.stdin as (typeof child.stdin & { unref?: () => void }) | null)?.unref?.();
    child.stdin?.on('error', () => undefined);
    child.once('error', () => {
      // Could not start (no /bin/sh): the in-process hooks still cover every exit but SIGKILL.
      supervisorFailed = true;
      supervisor = undefined;
    });
    child.once('exit', () => {
      // Killed from outside: start another on the next group, telling it those still alive.
      if (supervisor === child) supervisor = undefined;
      if (!supervisorFailed && liveGroups.size > 0)
        for (const [pgid, marker] of liveGroups) send(`add ${pgid}${marker === undefined ? '' : ` ${marker}`}\n`);
    });
    supervisor = child;
    return child;
  } catch {
    supervisorFailed = true;
    return undefined;
  }
}
