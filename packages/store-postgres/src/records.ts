import type { z } from 'zod';
import { ConfigError, LegionError, type StorageWarning } from '@legion-collective/core';
import { type LogCursor } from '@legion-collective/core/backend';

/** A stored JSON document (already parsed by the driver) through a schema, or why it fails. */
export function parseRecord<T>(value: unknown, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; problem: string } {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') ?? '';
  return { ok: false, problem: `${field ? `field "${field}": ` : ''}${issue?.message ?? 'invalid'}` };
}

/** Like `parseRecord`, but a broken record throws the `ConfigError` a broken file would. */
export function readRecord<T>(value: unknown, schema: z.ZodType<T>, where: string, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ConfigError({
    file: where,
    field: issue?.path.join('.') ?? '',
    problem: issue?.message ?? 'invalid',
    fix: `store a valid ${what}`,
    cause: parsed.error,
  });
}

/** Where a record lives, for warnings and errors: `postgres:sessions/<id>/<log>`. */
export function sourceOf(sessionId: string, log?: string): string {
  return `postgres:sessions/${sessionId}${log ? `/${log}` : ''}`;
}

const CURSOR = 'postgres:';

/** A position in a log: the sequence number of the last entry read. */
export function makeCursor(seq: number | string): LogCursor {
  return `${CURSOR}${seq}` as LogCursor;
}

export function cursorSeq(cursor: LogCursor): number {
  const seq = cursor.startsWith(CURSOR) ? Number(cursor.slice(CURSOR.length)) : Number.NaN;
  if (!Number.isSafeInteger(seq) || seq < 0) {
    throw new LegionError(
      'invalid_cursor',
      `"${cursor}" is not a cursor this storage backend made: use one returned by context(), end(), append() or readSince().`,
      { cursor },
    );
  }
  return seq;
}

/** Reports each broken record once per instance, not at every read. */
export function onceEach(onWarning: ((warning: StorageWarning) => void) | undefined): (warning: StorageWarning) => void {
  const warned = new Set<string>();
  return (warning) => {
    const key = `${warning.source}:${warning.offset}:${warning.problem}`;
    if (warned.has(key)) return;
    warned.add(key);
    onWarning?.(warning);
  };
}
