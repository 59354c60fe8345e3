import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { readRegularFileSync } from './regular-file.js';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { ConfigError, describeZodError } from '../../kernel/index.js';

/**
 * Writes JSON so that a reader (or a crash) sees either the old file or the new
 * one, never half of each: write a sibling temp file, fsync it, rename over.
 */
export function writeJsonAtomic(path: string, value: unknown, options: { durable?: boolean } = {}): void {
  writeTextAtomic(path, `${JSON.stringify(value, null, 2)}\n`, options);
}

/** `writeJsonAtomic` for text already serialized (a file as a person wrote it, formatting kept). */
export function writeTextAtomic(path: string, text: string, options: { durable?: boolean; ownerOnly?: boolean } = {}): void {
  const durable = options.durable !== false;
  const temp = writeTemp(path, text, durable, options.ownerOnly === true);
  try {
    renameSync(temp, path);
  } catch (error) {
    removeQuietly(temp);
    throw error;
  }
  // The rename lives in the directory: without this fsync a power cut can bring the old file back.
  if (durable) fsyncDirectory(dirname(path));
}

/**
 * Creates the file only if it does not exist yet; returns whether it wrote.
 * The content is complete before the name appears (a temp file, fsynced, then
 * hard-linked to the name, which fails if it exists): a crash never leaves an
 * empty or half-written file, and of racing writers exactly one wins.
 */
export function writeJsonIfAbsent(path: string, value: unknown): boolean {
  return writeTextIfAbsent(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** `writeJsonIfAbsent` for text already serialized. */
export function writeTextIfAbsent(path: string, text: string): boolean {
  const temp = writeTemp(path, text, true);
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    removeQuietly(temp);
  }
  fsyncDirectory(dirname(path));
  return true;
}

/** `owner`: a file only its owner may read (0600, in a directory made 0700), for one that holds keys. */
function writeTemp(path: string, text: string, durable: boolean, owner = false): string {
  mkdirSync(dirname(path), { recursive: true, ...(owner ? { mode: 0o700 } : {}) });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  // Created with its mode, not chmod-ed after: there is no moment when others may read the key.
  const fd = openSync(temp, 'wx', owner ? 0o600 : 0o666);
  try {
    writeSync(fd, text);
    // Metadata that is rewritten often and harmless to lose on power failure may skip the fsync.
    if (durable) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    removeQuietly(temp);
    throw error;
  }
  closeSync(fd);
  return temp;
}

/** Makes a directory's entries (a rename, a new name) durable. Some platforms cannot open a directory; they skip it. */
export function fsyncDirectory(directory: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(directory, 'r');
    fsyncSync(fd);
  } catch {
    // Windows and some network file systems refuse: the data itself was fsynced.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
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
  // Never blocks: a FIFO or device put where a JSON file should be is refused, not waited on.
  const text = readRegularFileSync(path, { requested: options.displayPath ?? path }).toString('utf8');
  return parseJsonText(text, schema, { what: options.what, file: options.displayPath ?? path });
}

/**
 * `readJsonFile` for text already in hand (an editor's buffer, a file about to
 * be written): the same `ConfigError`, naming `file` as where the text belongs.
 */
export function parseJsonText<Schema extends z.ZodType>(
  text: string,
  schema: Schema,
  options: { what: string; file: string },
): z.infer<Schema> {
  const file = options.file;
  // Editors on some systems save a byte-order mark, which JSON.parse rejects.
  const source = text.replace(/^\uFEFF/, '');
  let raw: unknown;
  try {
    raw = JSON.parse(source);
  } catch (error) {
    throw new ConfigError({
      file,
      field: '',
      problem: `is not valid JSON (${describeJsonError(error, source)})`,
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
