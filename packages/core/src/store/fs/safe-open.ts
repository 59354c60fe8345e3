import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, realpathSync, unlinkSync, writeSync } from 'node:fs';
import { relative } from 'node:path';
import { LEGION_DIR } from './workspace-paths.js';
import { isInside, isLegionInternal, type ResolvedPath } from './workspace-path.js';
import { openRegular } from './regular-file.js';

type Resolved = Extract<ResolvedPath, { ok: true }>;

/** Why an opened file was refused: it turned out to be somewhere else than the check said. */
export class PathMovedError extends Error {
  constructor(
    readonly requested: string,
    readonly where: 'outside' | 'legion',
  ) {
    super(
      where === 'outside'
        ? `"${requested}" changed while it was opened and now leads outside the workspace (a symbolic link was swapped in); nothing was written. Use a path whose folders are not links out of the workspace.`
        : `"${requested}" changed while it was opened and now leads into ${LEGION_DIR}/, Legion's own state; nothing was written.`,
    );
  }
}

/** Whether /proc/self/fd can be read: asked on the first open that needs it, not by every process that loads this module. */
let hasProcFd: boolean | undefined;
function procFdAvailable(): boolean {
  if (hasProcFd === undefined) {
    try {
      hasProcFd = realpathSync('/proc/self/fd') !== undefined;
    } catch {
      hasProcFd = false;
    }
  }
  return hasProcFd;
}

/**
 * Opens a checked path so that no swap between the check and the open can
 * redirect it: the last component is opened without following a link
 * (`O_NOFOLLOW`; a link the check allowed is opened at its real target), and
 * the descriptor's own location is verified afterwards — a parent folder
 * swapped for a link out of the workspace is caught there. `write` also
 * refuses a descriptor that lands in `.legion/`. Only a regular file (or a
 * directory, for the caller to refuse) is opened, and the open never blocks:
 * a FIFO, socket or device is refused with a `NotRegularFileError`.
 *
 * A file this call created and then refused is removed again. Returns the
 * descriptor and whether the file was created.
 */
export function openInWorkspace(
  root: string,
  resolved: Resolved,
  requested: string,
  access: 'read' | 'update' | 'write',
): { fd: number; created: boolean } {
  const base = constants.O_NOFOLLOW | (access === 'read' ? constants.O_RDONLY : constants.O_RDWR);
  let fd: number;
  let created = false;
  // Not following the last link: one the check allowed is opened at its real target below.
  const openChecked = (path: string, flags: number, mode?: number): number =>
    openRegular(path, flags, requested, { directories: true, follow: false, ...(mode === undefined ? {} : { mode }) });
  const open = (path: string): number => {
    if (access !== 'write') return openChecked(path, base);
    try {
      const descriptor = openChecked(path, base | constants.O_CREAT | constants.O_EXCL, 0o666);
      created = true;
      return descriptor;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return openChecked(path, base);
    }
  };
  try {
    fd = open(resolved.absolute);
  } catch (error) {
    // The path itself is a link (checked to lead inside): open where it leads, again without following.
    if ((error as NodeJS.ErrnoException).code !== 'ELOOP' || resolved.real === resolved.absolute) throw error;
    fd = open(resolved.real);
  }
  const where = misplaced(root, fd, resolved, access !== 'read');
  if (where) {
    const landed = locationOf(fd);
    closeSync(fd);
    if (created && landed) {
      try {
        unlinkSync(landed);
      } catch {
        // Already gone: nothing of ours is left there.
      }
    }
    throw new PathMovedError(requested, where);
  }
  return { fd, created };
}

/** Where an open descriptor really is, when the platform can say (Linux: /proc/self/fd). */
function locationOf(fd: number): string | undefined {
  if (!procFdAvailable()) return undefined;
  try {
    return realpathSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

function misplaced(root: string, fd: number, resolved: Resolved, writing: boolean): 'outside' | 'legion' | undefined {
  const realRoot = realpathSync(root);
  const landed = locationOf(fd);
  if (landed !== undefined) {
    if (!isInside(realRoot, landed)) return 'outside';
    return writing && isLegionInternal(relative(realRoot, landed)) ? 'legion' : undefined;
  }
  // Without /proc: the descriptor must be the very file now at the checked real path.
  try {
    const opened = fstatSync(fd);
    const expected = lstatSync(resolved.real);
    return opened.dev === expected.dev && opened.ino === expected.ino ? undefined : 'outside';
  } catch {
    return 'outside';
  }
}

/** Replaces an open file's content. */
export function replaceContent(fd: number, content: string | Buffer): void {
  ftruncateSync(fd, 0);
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written, written);
}
