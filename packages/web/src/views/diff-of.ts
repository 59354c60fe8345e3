import { createTwoFilesPatch } from 'diff';

/**
 * A unified diff of a file from what it is (`before`; null: no file yet) to what it would be
 * (`after`): the diff an approval of `file_write` or `file_edit` shows, once the server has read
 * the file through the tool's own checks (`GET …/approvals/:id/file-change`).
 */
export function filePatch(path: string, before: string | null, after: string): string {
  return unified(before === null ? '/dev/null' : `a/${path}`, `b/${path}`, before ?? '', after);
}

/**
 * What can be diffed from a call's arguments alone, when the file is not known (not read, or the
 * call is history and the file has moved on): `file_edit`'s replaced text against its
 * replacement. A `file_write` has nothing to diff against: drawing it against an empty file would
 * say it creates the file when it may replace one, so it is null, like any other tool.
 */
export function argumentsPatch(tool: string, input: unknown): string | null {
  if (tool !== 'file_edit' || typeof input !== 'object' || input === null) return null;
  const fields = input as Record<string, unknown>;
  const path = typeof fields.path === 'string' ? fields.path : 'file';
  if (typeof fields.old_string !== 'string' || typeof fields.new_string !== 'string') return null;
  return unified(`a/${path}`, `b/${path}`, fields.old_string, fields.new_string);
}

/** A unified diff with three lines of context, each side ending in a newline (so a last line without one is not flagged). */
function unified(from: string, to: string, before: string, after: string): string {
  return withoutHeader(createTwoFilesPatch(from, to, withNewline(before), withNewline(after), '', '', { context: 3 }));
}

const withNewline = (text: string): string => (text.endsWith('\n') || text === '' ? text : `${text}\n`);

// The `===` line createTwoFilesPatch puts first says nothing the --- / +++ lines do not.
const withoutHeader = (patch: string): string => patch.replace(/^=+\n/, '');
