import { LegionError } from '../kernel/index.js';
import type { LogCursor } from './session-backend.js';

/**
 * Cursors are opaque to callers; inside a backend they are a position with a
 * prefix naming the backend kind, so a cursor handed to the wrong backend is
 * refused instead of read as a wrong position.
 */
export function makeCursor(kind: string, position: number): LogCursor {
  return `${kind}:${position}` as LogCursor;
}

export function cursorPosition(kind: string, cursor: LogCursor): number {
  const prefix = `${kind}:`;
  const position = cursor.startsWith(prefix) ? Number(cursor.slice(prefix.length)) : Number.NaN;
  if (!Number.isSafeInteger(position) || position < 0) {
    throw new LegionError(
      'invalid_cursor',
      `"${cursor}" is not a cursor this storage backend made: use one returned by context(), end(), append() or readSince().`,
      { cursor },
    );
  }
  return position;
}
