import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  readSync,
  writeFileSync,
  writeSync,
  ftruncateSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { openRegular } from './regular-file.js';

/**
 * Opens the log without ever blocking: a FIFO or device put where the log
 * should be is refused (`NotRegularFileError`) instead of freezing every
 * reader of the session.
 */
function openSync(path: string, flags: 'r' | 'a+'): number {
  return openRegular(path, flags === 'r' ? constants.O_RDONLY : constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, path, {
    mode: 0o666,
  });
}

export interface LogLine {
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Byte offset just past the line, including its newline if it has one. */
  end: number;
  text: string;
}

export interface LogWarning {
  path: string;
  offset: number;
  problem: string;
}

const CHUNK = 64 * 1024;

/**
 * An append-only file of JSON lines. Appends are one `write` on an `O_APPEND`
 * descriptor, so their cost does not depend on the file's length and a crash
 * can tear at most the last line. Reads go backwards from the end so that
 * opening a long history costs what is shown, not what is stored.
 */
export class JsonlLog {
  private fd: number | undefined;
  private size = 0;
  private repaired = false;

  constructor(
    readonly path: string,
    private readonly options: { fsync?: boolean; onWarning?: (warning: LogWarning) => void } = {},
  ) {}

  exists(): boolean {
    return existsSync(this.path);
  }

  /** Current length in bytes as this process last saw or wrote it. */
  get knownSize(): number {
    return this.size;
  }

  /** Length on disk now (another process may have appended). */
  diskSize(): number {
    if (this.fd !== undefined) return fstatSync(this.fd).size;
    try {
      const fd = openSync(this.path, 'r');
      try {
        return fstatSync(fd).size;
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
  }

  /** Appends one JSON line; returns the bytes written. */
  append(value: unknown): number {
    return this.appendText(`${JSON.stringify(value)}\n`);
  }

  /**
   * Appends one JSON line and says where it landed, when that is certain: the descriptor's size
   * before the write and after it differ by exactly the line, so no other process appended in
   * between nor since this one last looked. Undefined otherwise (the line is appended all the same).
   */
  appendPlaced(value: unknown): { bytes: number; placed: { start: number; end: number } | undefined } {
    const fd = this.openForAppend();
    const start = this.size;
    const bytes = this.append(value);
    const end = fstatSync(fd).size;
    return { bytes, placed: end - bytes === start ? { start, end } : undefined };
  }

  appendText(line: string): number {
    const fd = this.openForAppend();
    const bytes = Buffer.from(line, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    if (this.options.fsync) fsyncSync(fd);
    this.size += bytes.length;
    return bytes.length;
  }

  /** The first complete line, if any. */
  readForwardFirst(): LogLine | undefined {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      let buffer = Buffer.alloc(0);
      for (;;) {
        const chunk = Buffer.allocUnsafe(CHUNK);
        const count = readSync(fd, chunk, 0, CHUNK, buffer.length);
        buffer = Buffer.concat([buffer, chunk.subarray(0, count)]);
        const newline = buffer.indexOf(0x0a);
        if (newline >= 0) return { offset: 0, end: newline + 1, text: buffer.toString('utf8', 0, newline) };
        if (count === 0) {
          const text = buffer.toString('utf8');
          return isCompleteJson(text) ? { offset: 0, end: buffer.length, text } : undefined;
        }
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Offset just past the last newline: where the next complete line will start (0 for no file). */
  endOfLastLine(): number {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    try {
      let position = fstatSync(fd).size;
      const chunk = Buffer.allocUnsafe(4096);
      while (position > 0) {
        const length = Math.min(chunk.length, position);
        readSync(fd, chunk, 0, length, position - length);
        const newline = chunk.subarray(0, length).lastIndexOf(0x0a);
        if (newline >= 0) return position - length + newline + 1;
        position -= length;
      }
      return 0;
    } finally {
      closeSync(fd);
    }
  }

  /** Flushes appended lines to the disk itself, not only the OS cache. */
  sync(): void {
    if (this.fd !== undefined) fsyncSync(this.fd);
  }

  /**
   * As `sync`, in libuv's thread pool: an fsync waits on the disk for milliseconds (seconds on a busy
   * one), and on the event loop that stalled every other turn and event stream of the process
   * (bench/serve-events.mjs). A descriptor of its own, so a `close` meanwhile cannot pull it away;
   * fsync flushes the file, whichever descriptor names it.
   */
  async syncOffThread(): Promise<void> {
    if (this.fd === undefined) return;
    // Non-blocking like every open here: should the path have become a FIFO, this must not hold a worker thread forever.
    const handle = await open(this.path, constants.O_RDWR | (constants.O_NONBLOCK ?? 0));
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /**
   * Reads complete lines backwards from the end, newest first, until `stop`
   * says so (the line that stops is included) or `limit` lines were read.
   */
  readBackward(options: { limit?: number; stop?: (line: LogLine) => boolean } = {}): LogLine[] {
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const lines: LogLine[] = [];
    if (limit <= 0) return lines;
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return lines;
      throw error;
    }
    try {
      let position = fstatSync(fd).size;
      // `carry` holds the bytes from `position` up to the end of the oldest line not yet emitted.
      let carry: Buffer = Buffer.alloc(0);
      let isTail = true;
      let chunkSize = CHUNK;
      for (;;) {
        const newline = carry.lastIndexOf(0x0a);
        if (newline < 0 && position > 0) {
          const length = Math.min(chunkSize, position);
          position -= length;
          const chunk = Buffer.allocUnsafe(length);
          readSync(fd, chunk, 0, length, position);
          carry = carry.length > 0 ? Buffer.concat([chunk, carry]) : chunk;
          // one very long line should not cost a quadratic number of copies
          chunkSize = Math.min(chunkSize * 2, 16 * 1024 * 1024);
          continue;
        }
        const start = newline + 1;
        if (start < carry.length) {
          const text = carry.toString('utf8', start);
          const offset = position + start;
          if (isTail && !isCompleteJson(text)) {
            this.warn(offset, `dropped a torn last line (${carry.length - start} bytes) left by an interrupted write`);
          } else {
            // Every line but the file's last ends with the newline that was cut off `carry`.
            const line = { offset, end: position + carry.length + (isTail ? 0 : 1), text };
            lines.push(line);
            if (lines.length >= limit || options.stop?.(line)) return lines;
          }
        }
        isTail = false;
        if (newline < 0) return lines;
        carry = carry.subarray(0, newline);
      }
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Reads complete lines from `offset` to the end, oldest first. With
   * `waitForPartial`, a last line without its newline is left unread and
   * unwarned (a follower reads while another process writes): `end` stops before it.
   */
  readForward(offset = 0, options: { waitForPartial?: boolean } = {}): { lines: LogLine[]; end: number } {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], end: 0 };
      throw error;
    }
    try {
      const size = fstatSync(fd).size;
      const buffer = Buffer.allocUnsafe(Math.max(size - offset, 0));
      let read = 0;
      while (read < buffer.length) {
        const count = readSync(fd, buffer, read, buffer.length - read, offset + read);
        if (count === 0) break;
        read += count;
      }
      const lines: LogLine[] = [];
      let start = 0;
      while (start < read) {
        const newline = buffer.indexOf(0x0a, start);
        if (newline < 0 || newline >= read) {
          if (options.waitForPartial) break;
          const tail = buffer.subarray(start, read).toString('utf8');
          if (isCompleteJson(tail)) {
            lines.push({ offset: offset + start, end: offset + read, text: tail });
            start = read;
          } else {
            this.warn(offset + start, `dropped a torn last line (${read - start} bytes) left by an interrupted write`);
          }
          break;
        }
        if (newline > start)
          lines.push({ offset: offset + start, end: offset + newline + 1, text: buffer.toString('utf8', start, newline) });
        start = newline + 1;
      }
      return { lines, end: offset + start };
    } finally {
      closeSync(fd);
    }
  }

  private openForAppend(): number {
    if (this.fd !== undefined) return this.fd;
    mkdirSync(dirname(this.path), { recursive: true });
    const fd = openSync(this.path, 'a+');
    this.fd = fd;
    this.size = fstatSync(fd).size;
    if (!this.repaired) {
      this.repaired = true;
      this.repairTail();
    }
    return fd;
  }

  /**
   * A torn last line would glue itself to the next append. Keep its bytes in a
   * side file (nothing is thrown away) and cut the log back to its last newline.
   */
  repairTail(): void {
    const fd = this.openForAppend();
    this.size = fstatSync(fd).size;
    if (this.size === 0) return;
    const last = Buffer.allocUnsafe(1);
    readSync(fd, last, 0, 1, this.size - 1);
    if (last[0] === 0x0a) return;
    // Walk back chunk by chunk: a torn line may be longer than any one chunk.
    let tailStart = this.size;
    const chunk = Buffer.allocUnsafe(CHUNK);
    while (tailStart > 0) {
      const length = Math.min(CHUNK, tailStart);
      readSync(fd, chunk, 0, length, tailStart - length);
      const newline = chunk.subarray(0, length).lastIndexOf(0x0a);
      tailStart -= length;
      if (newline >= 0) {
        tailStart += newline + 1;
        break;
      }
    }
    const tail = Buffer.allocUnsafe(this.size - tailStart);
    readSync(fd, tail, 0, tail.length, tailStart);
    if (isCompleteJson(tail.toString('utf8'))) {
      writeSync(fd, '\n');
      this.size += 1;
      return;
    }
    // Unique per call, so two repairs in one millisecond never overwrite each other's bytes.
    const sidePath = `${this.path}.torn-${Date.now()}-${randomBytes(3).toString('hex')}`;
    writeFileSync(sidePath, tail, { flag: 'wx' });
    ftruncateSync(fd, tailStart);
    this.size = tailStart;
    this.warn(tailStart, `cut a torn last line (${tail.length} bytes) before appending; its bytes are kept in ${sidePath}`);
  }

  private warn(offset: number, problem: string): void {
    this.options.onWarning?.({ path: this.path, offset, problem });
  }
}

function isCompleteJson(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}
