import { closeSync } from 'node:fs';
import { z } from 'zod';
import { defineTool, type Tool, type ToolContext, type ToolResult } from '../../tool.js';
import { editorWrites, readEditorOrDisk, writeThroughEditor } from './editor-text.js';
import { claimBeforeWrite } from './file-claim-check.js';
import { describeFsError } from './fs-error.js';
import { keptChange } from './kept-change.js';
import { looksBinary } from './text-file.js';
import { openInWorkspace, readDescriptor, replaceContent, resolveToolPath, type ResolvedPath } from '../../../store/index.js';

/** How many line numbers an ambiguity error lists. */
const MAX_LISTED = 10;

/** Replaces an exact string in a file: once (it must be unique) or everywhere. */
export function createFileEditTool(): Tool {
  return defineTool({
    name: 'file_edit',
    description:
      'Edit a text file by replacing an exact string (old_string) with new_string. old_string must match the file exactly, ' +
      'whitespace and indentation included, and must occur exactly once unless replace_all is true: add surrounding lines to make it unique. ' +
      'Read the file first so that old_string is copied from it (without the line numbers file_read adds). .legion/ cannot be edited.',
    input: () =>
      z.object({
        path: z.string().min(1).describe('File path relative to the workspace root.'),
        old_string: z.string().min(1).describe('The exact text to replace.'),
        new_string: z.string().describe('The text to put in its place (may be empty to delete).'),
        replace_all: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one.'),
      }),
    effect: 'write',
    policyAliases: ['file_write'],
    // Its errors say whether, and on which line, old_string occurs: an oracle on the content, so it answers to file_read too.
    readsPaths: true,
    async execute(input, context) {
      if (input.old_string === input.new_string)
        return { status: 'error', error: 'old_string and new_string are the same: nothing to change.' };
      const resolved = resolveToolPath(context.workspaceRoot, input.path, 'write');
      if (!resolved.ok) return { status: 'error', error: resolved.error };
      const claimed = await claimBeforeWrite(context, 'file_edit', resolved.relative);
      if (claimed !== undefined) return { status: 'error', error: claimed };
      if (editorWrites(context)) return editThroughEditor(input, resolved, context);
      // One descriptor, verified once, for both the read and the write: nothing can be swapped in between.
      let fd: number;
      let content: Buffer;
      try {
        fd = openInWorkspace(context.workspaceRoot!, resolved, input.path, 'update').fd;
      } catch (error) {
        return { status: 'error', error: describeFsError(error, input.path, 'read') };
      }
      try {
        content = readDescriptor(fd, input.path);
      } catch (error) {
        closeSync(fd);
        return { status: 'error', error: describeFsError(error, input.path, 'read') };
      }
      const handle = fd;
      const close = <T>(value: T): T => {
        closeSync(handle);
        return value;
      };
      if (looksBinary(content))
        return close({ status: 'error', error: `"${input.path}" looks binary; file_edit changes text files only.` });
      const text = content.toString('utf8');
      const edit = applyEdit(text, input.old_string, input.new_string, input.replace_all === true);
      const refusal = editRefusal(edit, text, resolved.relative);
      if (refusal !== undefined || edit.status !== 'edited') return close({ status: 'error', error: refusal ?? '' });
      try {
        replaceContent(handle, edit.text);
      } catch (error) {
        return close({ status: 'error', error: describeFsError(error, input.path, 'write') });
      }
      return close(edited(resolved.relative, text, edit));
    },
  });
}

/** Why an edit cannot be made, for the model (undefined: it can). */
function editRefusal(edit: EditOutcome, text: string, relative: string): string | undefined {
  if (edit.status === 'not_found')
    return `old_string was not found in ${relative}. Read the file again and copy the text exactly, whitespace included.`;
  if (edit.status === 'ambiguous') {
    const { positions } = edit;
    const lines = positions.slice(0, MAX_LISTED).map((position) => lineAt(text, position));
    const more = positions.length > MAX_LISTED ? ', …' : '';
    return `old_string occurs ${positions.length} times in ${relative} (lines ${lines.join(', ')}${more}). Include more surrounding text to make it unique, or set replace_all.`;
  }
  return undefined;
}

/** The result of an edit: for the model its line, for the history the change it made. */
function edited(relative: string, text: string, edit: Extract<EditOutcome, { status: 'edited' }>): ToolResult {
  return {
    status: 'success',
    data: editedText(relative, text, edit.positions),
    fileChange: keptChange(relative, text, edit.text, 'edited'),
  };
}

function editedText(relative: string, text: string, positions: readonly number[]): string {
  const first = lineAt(text, positions[0]!);
  const count = positions.length;
  return `Edited ${relative}: ${count} replacement${count === 1 ? '' : 's'} (first at line ${first}).`;
}

/**
 * The edit of a file the editor shows: its text (the unsaved buffer, else the disk's) edited and
 * written back through the editor, so the change lands where the user is looking.
 */
async function editThroughEditor(
  input: { path: string; old_string: string; new_string: string; replace_all?: boolean | undefined },
  resolved: Extract<ResolvedPath, { ok: true }>,
  context: ToolContext,
): Promise<ToolResult> {
  const read = await readEditorOrDisk(context, resolved, input.path);
  if (read.status === 'error') return read;
  const { content } = read;
  if (looksBinary(content)) return { status: 'error', error: `"${input.path}" looks binary; file_edit changes text files only.` };
  const text = content.toString('utf8');
  const edit = applyEdit(text, input.old_string, input.new_string, input.replace_all === true);
  const refusal = editRefusal(edit, text, resolved.relative);
  if (refusal !== undefined || edit.status !== 'edited') return { status: 'error', error: refusal ?? '' };
  const refused = await writeThroughEditor(context, resolved.absolute, input.path, edit.text);
  if (refused !== undefined) return { status: 'error', error: refused };
  return edited(resolved.relative, text, edit);
}

/** What `file_edit` makes of a text: the text edited and where, or why it would fail. */
export type EditOutcome =
  { status: 'edited'; text: string; positions: number[] } | { status: 'not_found' } | { status: 'ambiguous'; positions: number[] };

/**
 * `oldString` replaced by `newString` in `text`: every occurrence with `replaceAll`, else the one
 * there must be. The one definition of the edit: the tool runs it, and an approval card shows it
 * (`fileChange`) before the tool runs, so what is approved is what runs.
 */
export function applyEdit(text: string, oldString: string, newString: string, replaceAll: boolean): EditOutcome {
  const positions = oldString === '' ? [] : occurrences(text, oldString);
  if (positions.length === 0) return { status: 'not_found' };
  if (positions.length > 1 && !replaceAll) return { status: 'ambiguous', positions };
  // Slicing, not String.replace: "$&" and friends in new_string must stay literal.
  let result = '';
  let from = 0;
  for (const position of positions) {
    result += text.slice(from, position) + newString;
    from = position + oldString.length;
  }
  return { status: 'edited', text: result + text.slice(from), positions };
}

/** Start offsets of the non-overlapping occurrences of `needle`. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let index = text.indexOf(needle); index >= 0; index = text.indexOf(needle, index + needle.length)) found.push(index);
  return found;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index >= 0 && index < offset; index = text.indexOf('\n', index + 1)) line++;
  return line;
}
