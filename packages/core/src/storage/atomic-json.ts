import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { describeZodError } from '../config/zod-issues.js';

/**
 * Writes JSON so that a reader (or a crash) sees either the old file or the new
 * one, never half of each: write a sibling temp file, fsync it, rename over.
 */
export function writeJsonAtomic(path: string, value: unknown, options: { durable?: boolean } = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
    // Metadata that is rewritten often and harmless to lose on power failure may skip the fsync.
    if (options.durable !== false) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // the temp file is already gone; the rename error is the one to report
    }
    throw error;
  }
}

/** Creates the file only if it does not exist yet; returns whether it wrote. */
export function writeJsonIfAbsent(path: string, value: unknown): boolean {
  mkdirSync(dirname(path), { recursive: true });
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Reads and validates a JSON file the user may have edited by hand. Broken JSON
 * and schema mismatches become a `ConfigError` naming the file, the field and
 * what is expected; the file itself is never touched.
 */
export function readJsonFile<Schema extends z.ZodType>(
  path: string,
  schema: Schema,
  options: { what: string; displayPath?: string },
): z.infer<Schema> {
  const file = options.displayPath ?? path;
  // Editors on some systems save a byte-order mark, which JSON.parse rejects.
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError({
      file,
      field: '',
      problem: `is not valid JSON (${describeJsonError(error, text)})`,
      fix: `correct the JSON syntax of this ${options.what}`,
      cause: error,
    });
  }
  const parsed = schema.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    const { field, problem, fix } = describeZodError(parsed.error, raw);
    throw new ConfigError({ file, field, problem, fix: `${fix} in this ${options.what}`, cause: parsed.error });
  }
  return parsed.data;
}

/** V8's JSON errors give a character position; people look for a line and column. */
function describeJsonError(error: unknown, text: string): string {
  const message = (error as Error).message;
  const position = /at position (\d+)/.exec(message);
  if (!position || /line \d+/.test(message)) return message;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${message}, line ${line} column ${column}`;
}
