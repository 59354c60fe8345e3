import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';

/**
 * The most Legion reads of one file at once (64 MiB). A file's content is held
 * whole in memory, as text, to number lines or replace strings: past this a
 * read would cost hundreds of megabytes, and an endless one (a growing file)
 * would never end.
 */
export const MAX_READ_BYTES = 64 * 1024 * 1024;

/**
 * `O_NONBLOCK` makes opening a FIFO return at once instead of waiting for the
 * other end (and opening one for writing without a reader fail with ENXIO).
 * A blocked open cannot be interrupted: not by a timeout, not by Ctrl-C, not
 * even on a worker thread, which it would hold forever. Regular files ignore
 * the flag. Windows has neither flag (nor FIFOs): 0 there.
 */
const NEVER_BLOCK = constants.O_NONBLOCK ?? 0;

/** Why a path was refused: it names a FIFO, a socket or a device, whose open or read may block forever or never end. */
export class NotRegularFileError extends Error {
  constructor(
    readonly requested: string,
    readonly kind: string,
  ) {
    super(`"${requested}" is ${kind}, not a regular file; Legion reads and writes only regular files.`);
  }
}

/** Why a read was refused: the file is larger than what is read at once. */
export class FileTooLargeError extends Error {
  constructor(
    readonly requested: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`"${requested}" is ${megabytes(bytes)}, more than the ${megabytes(limit)} Legion reads at once.`);
  }
}

/** The type tests a `Stats` and a `Dirent` share. */
type EntryType = Pick<Stats, 'isFile' | 'isDirectory' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice' | 'isSymbolicLink'>;

/** What a file system entry is, in words, when it is not a regular file (undefined when it is one). */
export function specialKind(stats: EntryType): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'a special file';
}

/**
 * Opens `path` so that the open itself can never block, and returns the
 * descriptor only if it is a regular file (or a directory, with
 * `directories`). `path` is looked at first, so that a device is refused
 * without being opened (opening some has effects); the descriptor is checked
 * again after the open, so that a FIFO swapped in between is refused too.
 * `requested` is the name errors give (the path as the caller spelled it).
 */
export function openRegular(
  path: string,
  flags: number,
  requested: string,
  options: { mode?: number; directories?: boolean; follow?: boolean } = {},
): number {
  const before = kindAt(path, options.follow ?? true);
  // A link not followed is opened with O_NOFOLLOW by the caller, which fails on it with ELOOP as it should.
  if (before !== undefined && before !== 'a symbolic link' && !(options.directories && before === 'a directory'))
    throw new NotRegularFileError(requested, before);
  let fd: number;
  try {
    fd = openSync(path, flags | NEVER_BLOCK, options.mode);
  } catch (error) {
    // A socket (or a device without a driver) cannot be opened at all: name what it is rather than "ENXIO".
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENXIO' || code === 'ENODEV' || code === 'EOPNOTSUPP') {
      const kind = kindAt(path, options.follow ?? true);
      throw new NotRegularFileError(requested, kind === undefined || kind === 'a symbolic link' ? 'a special file' : kind);
    }
    throw error;
  }
  try {
    const kind = specialKind(fstatSync(fd));
    if (kind !== undefined && !(options.directories && kind === 'a directory')) throw new NotRegularFileError(requested, kind);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** What `path` is when it is not a regular file; undefined for a regular file, or when it is missing or cannot be looked at (the open then says why). */
function kindAt(path: string, follow: boolean): string | undefined {
  try {
    return specialKind(follow ? statSync(path) : lstatSync(path));
  } catch {
    return undefined;
  }
}

/**
 * Reads a whole open regular file, up to `maxBytes`: a larger one (by its size,
 * or by what the reads return, should it grow meanwhile) is refused rather than
 * read on without end.
 */
export function readDescriptor(fd: number, requested: string, maxBytes: number = MAX_READ_BYTES): Buffer {
  const stats = fstatSync(fd);
  const kind = specialKind(stats);
  if (kind !== undefined) throw new NotRegularFileError(requested, kind);
  if (stats.size > maxBytes) throw new FileTooLargeError(requested, stats.size, maxBytes);
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    // One byte past the size, to see the end in one read; never more than one past the limit. The small files read
    // on every turn (session.json, lock files) take a small chunk: 64 KiB each was most of a turn's garbage.
    const chunk = Buffer.allocUnsafe(Math.min(Math.max(4 * 1024, stats.size - total + 1), maxBytes + 1 - total));
    const read = readSync(fd, chunk, 0, chunk.length, total);
    if (read === 0) break;
    chunks.push(chunk.subarray(0, read));
    total += read;
    if (total > maxBytes) throw new FileTooLargeError(requested, total, maxBytes);
  }
  return Buffer.concat(chunks, total);
}

/**
 * `readFileSync` for a file someone else named (a model, a user, a file on
 * disk): a FIFO, socket or device is refused without blocking, and at most
 * `maxBytes` are read. Symbolic links are followed; errors such as ENOENT
 * are thrown as `readFileSync` throws them.
 */
export function readRegularFileSync(path: string, options: { requested?: string; maxBytes?: number } = {}): Buffer {
  const fd = openRegular(path, constants.O_RDONLY, options.requested ?? path);
  try {
    return readDescriptor(fd, options.requested ?? path, options.maxBytes);
  } finally {
    closeSync(fd);
  }
}

function megabytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${bytes} bytes` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
