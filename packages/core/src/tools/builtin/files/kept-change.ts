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
 * Past this many changed lines the diff is given up on rather than computed (Myers' algorithm
 * costs the file's length times the edits): a rewrite that large is not read as a diff anyway.
 */
const MAX_EDIT_LENGTH = 5_000;

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
  const patch = createTwoFilesPatch(
    beforeText === null ? '/dev/null' : `a/${path}`,
    after === null ? '/dev/null' : `b/${path}`,
    withNewline(beforeText ?? ''),
    withNewline(after ?? ''),
    undefined,
    undefined,
    { context: 3, maxEditLength: MAX_EDIT_LENGTH },
  );
  if (patch === undefined) return notKept(`too large to keep: more than ${MAX_EDIT_LENGTH} lines changed.`);
  const trimmed = withoutHeader(patch);
  if (Buffer.byteLength(trimmed, 'utf8') > KEPT_PATCH_MAX_BYTES)
    return notKept(`too large to keep: the diff is over ${KEPT_PATCH_MAX_BYTES / 1024} KiB.`);
  return { status: 'kept', path, action, patch: trimmed };
}

const byteLength = (content: string | Buffer | null): number =>
  content === null ? 0 : Buffer.isBuffer(content) ? content.length : Buffer.byteLength(content, 'utf8');

// Each side ends in a newline, so a last line without one is not flagged as changed ("\ No newline at end of file").
const withNewline = (text: string): string => (text.endsWith('\n') || text === '' ? text : `${text}\n`);

// The `===` line createTwoFilesPatch puts first says nothing the --- / +++ lines do not.
const withoutHeader = (patch: string): string => patch.replace(/^=+\n/, '');
