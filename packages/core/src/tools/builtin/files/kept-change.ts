import { createTwoFilesPatch } from 'diff';
import type { KeptFileChange } from '../../../kernel/index.js';
import { looksBinary } from './text-file.js';

/**
 * Files larger than this (before or after the call) are not diffed for the history: the diff of
 * a larger file would not be read, and diffing it would cost each call that writes one.
 */
export const KEPT_FILE_MAX_BYTES = 256 * 1024;

/**
 * A diff longer than this is not kept: it is stored with the result in the conversation's log
 * on every write, so a rewrite of a big file must not double the log's size each time.
 */
export const KEPT_PATCH_MAX_BYTES = 64 * 1024;

/**
 * Past this many changed lines the line-by-line diff is given up on (Myers' algorithm costs about
 * the square of the edits: bench/kept-change.mjs measured 8 s for a 256 KiB rewrite at 5,000, some
 * 30 ms at 400), and the change is kept as one hunk, every old line removed and every new one added.
 */
const MAX_EDIT_LENGTH = 400;

/** The file before the call: its text or bytes, null when there was none, or why it was not read. */
export type ContentBefore = string | Buffer | null | { notRead: string };

/**
 * What a file tool's call did to the file at `path` (workspace-relative), for the history: the
 * unified diff from `before` (null: there was no file) to `after` (null: it was deleted), or why
 * it is not kept. Not redacted here: the executor redacts it as it redacts the result's text.
 */
export function keptChange(path: string, before: ContentBefore, after: string | null, action: KeptFileChange['action']): KeptFileChange {
  const notKept = (reason: string): KeptFileChange => ({ status: 'not_kept', path, action, reason });
  if (before !== null && typeof before === 'object' && !Buffer.isBuffer(before)) return notKept(before.notRead);
  const largest = Math.max(byteLength(before), byteLength(after));
  if (largest > KEPT_FILE_MAX_BYTES) return notKept(`too large to keep: the file is over ${KEPT_FILE_MAX_BYTES / 1024} KiB.`);
  if (Buffer.isBuffer(before) && looksBinary(before)) return notKept('the file as it was looks binary.');
  const beforeText = Buffer.isBuffer(before) ? before.toString('utf8') : before;
  const from = beforeText === null ? '/dev/null' : `a/${path}`;
  const to = after === null ? '/dev/null' : `b/${path}`;
  const oldText = withNewline(beforeText ?? '');
  const newText = withNewline(after ?? '');
  const patch = createTwoFilesPatch(from, to, oldText, newText, undefined, undefined, { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  const trimmed = patch === undefined ? wholeReplacement(from, to, oldText, newText) : withoutHeader(patch);
  if (Buffer.byteLength(trimmed, 'utf8') > KEPT_PATCH_MAX_BYTES)
    return notKept(`too large to keep: the diff is over ${KEPT_PATCH_MAX_BYTES / 1024} KiB.`);
  return { status: 'kept', path, action, patch: trimmed };
}

/** The diff of a rewrite too different to diff line by line: one hunk, every old line removed, every new one added. */
function wholeReplacement(from: string, to: string, oldText: string, newText: string): string {
  const oldLines = linesOf(oldText);
  const newLines = linesOf(newText);
  const range = (count: number): string => (count === 0 ? '0,0' : `1,${count}`);
  return [
    `--- ${from}`,
    `+++ ${to}`,
    `@@ -${range(oldLines.length)} +${range(newLines.length)} @@`,
    ...oldLines.map((line) => `-${line}`),
    ...newLines.map((line) => `+${line}`),
    '',
  ].join('\n');
}

/** The lines of a text that ends in a newline (or is empty). */
const linesOf = (text: string): string[] => (text === '' ? [] : text.slice(0, -1).split('\n'));

const byteLength = (content: string | Buffer | null): number =>
  content === null ? 0 : Buffer.isBuffer(content) ? content.length : Buffer.byteLength(content, 'utf8');

// Each side ends in a newline, so a last line without one is not flagged as changed ("\ No newline at end of file").
const withNewline = (text: string): string => (text.endsWith('\n') || text === '' ? text : `${text}\n`);

// The `===` line createTwoFilesPatch puts first says nothing the --- / +++ lines do not.
const withoutHeader = (patch: string): string => patch.replace(/^=+\n/, '');
