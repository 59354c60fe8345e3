import { PassThrough, type Readable } from 'node:stream';

export interface BoundedLinesOptions {
  /** The longest line passed on, in bytes (without its newline). */
  maxLineBytes: number;
  /** Called for each longer line, once it ended: its size, and its first bytes (the rest was counted, never kept). */
  onOversized(bytes: number, head: Buffer): void;
  /** Called for each line within the limit (without its newline) before it is passed on; false drops it (the caller answered it). */
  admit?(line: Buffer): boolean;
}

/** How much of a dropped line is kept: enough for the JSON-RPC envelope (`jsonrpc`, `id`, `method`) that precedes its params. */
const HEAD_BYTES = 4096;

/**
 * Standard input as the MCP SDK's stdio transport should see it: whole lines of at most
 * `maxLineBytes`, each written on as it ends. A longer line is dropped as it arrives, never held
 * (the SDK would buffer it up to its own limit, then close the transport: the server exited
 * with 0, the request unanswered); once its newline comes, `onOversized` tells its size, so the
 * caller can answer it, and the lines after it go on as usual.
 */
export function boundedLines(input: Readable, options: BoundedLinesOptions): PassThrough {
  const output = new PassThrough();
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** Bytes of the current line, counted past the limit while it is being dropped. */
  let oversized: number | undefined;
  let head = Buffer.alloc(0);

  const take = (piece: Buffer): void => {
    if (oversized !== undefined) {
      oversized += piece.length;
      return;
    }
    if (pendingBytes + piece.length > options.maxLineBytes) {
      oversized = pendingBytes + piece.length;
      // A copy of the first bytes only (concat with a length stops there).
      head = Buffer.concat([...pending, piece], Math.min(HEAD_BYTES, oversized));
      pending = [];
      pendingBytes = 0;
      return;
    }
    pending.push(piece);
    pendingBytes += piece.length;
  };

  const endLine = (): void => {
    if (oversized !== undefined) {
      const bytes = oversized;
      oversized = undefined;
      options.onOversized(bytes, head);
      head = Buffer.alloc(0);
      return;
    }
    const line = Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    if (options.admit && !options.admit(line)) return;
    output.write(Buffer.concat([line, Buffer.from('\n')]));
  };

  const onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (let newline = data.indexOf(0x0a, start); newline !== -1; newline = data.indexOf(0x0a, start)) {
      take(data.subarray(start, newline));
      endLine();
      start = newline + 1;
    }
    if (start < data.length) take(data.subarray(start));
  };
  input.on('data', onData);
  input.once('end', () => output.end());
  input.once('error', (error) => output.destroy(error));
  input.once('close', () => {
    input.off('data', onData);
    if (!output.writableEnded) output.end();
  });
  return output;
}
