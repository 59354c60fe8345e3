import { closeSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool, type ToolResult } from '../../tool.js';
import { claimBeforeWrite } from './file-claim-check.js';
import { editorWrites, readEditorOrDisk, writeThroughEditor } from './editor-text.js';
import { describeFsError, formatBytes } from './fs-error.js';
import { KEPT_FILE_MAX_BYTES, keptChange, type ContentBefore } from './kept-change.js';
import { FileTooLargeError, openInWorkspace, readDescriptor, replaceContent, resolveToolPath } from '../../../store/index.js';

/** Creates or overwrites a text file of the workspace. */
export function createFileWriteTool(): Tool {
  return defineTool({
    name: 'file_write',
    description:
      'Create a text file, or replace the whole content of an existing one, in the workspace. Missing parent folders are created. ' +
      'For a change to part of a file use file_edit instead: it is safer and cheaper. ' +
      "Paths are relative to the workspace root; .legion/ (Legion's own state) cannot be written.",
    input: () =>
      z.object({
        path: z.string().min(1).describe('File path relative to the workspace root.'),
        content: z.string().describe('The complete new content of the file.'),
      }),
    effect: 'write',
    async execute(input, context) {
      const resolved = resolveToolPath(context.workspaceRoot, input.path, 'write');
      if (!resolved.ok) return { status: 'error', error: resolved.error };
      const claimed = await claimBeforeWrite(context, 'file_write', resolved.relative);
      if (claimed !== undefined) return { status: 'error', error: claimed };
      const existed = existsSync(resolved.absolute);
      if (editorWrites(context)) {
        if (existed && statSync(resolved.absolute).isDirectory()) return { status: 'error', error: `"${input.path}" is a directory.` };
        // What the editor has (its unsaved buffer, else the disk): the text this write replaces.
        const replaced = existed && context.readable(resolved.relative) ? await readEditorOrDisk(context, resolved, input.path) : undefined;
        const before: ContentBefore = !existed
          ? null
          : replaced === undefined
            ? deniedReading(resolved.relative)
            : replaced.status === 'success'
              ? replaced.content
              : { notRead: replaced.error };
        // The editor writes it (its buffer, saved or not, as it does): the disk is the editor's to change.
        const refused = await writeThroughEditor(context, resolved.absolute, input.path, input.content);
        if (refused !== undefined) return { status: 'error', error: refused };
        return written(existed, resolved.relative, before, input.content);
      }
      let before: ContentBefore;
      try {
        if (existed && statSync(resolved.absolute).isDirectory()) return { status: 'error', error: `"${input.path}" is a directory.` };
        mkdirSync(dirname(resolved.absolute), { recursive: true });
        // Opened without following links and verified where it landed: a swapped folder cannot redirect the write.
        const { fd, created } = openInWorkspace(context.workspaceRoot!, resolved, input.path, 'write');
        try {
          // Read through the descriptor the write goes through: the content replaced is this file's, nothing swapped in.
          before = created
            ? null
            : context.readable(resolved.relative)
              ? replacedContent(fd, input.path)
              : deniedReading(resolved.relative);
          replaceContent(fd, input.content);
        } finally {
          closeSync(fd);
        }
      } catch (error) {
        return { status: 'error', error: describeFsError(error, input.path, 'write') };
      }
      return written(existed, resolved.relative, before, input.content);
    },
  });
}

/** The result of a write: for the model its line, for the history the change it made. */
function written(existed: boolean, relative: string, before: ContentBefore, content: string): ToolResult {
  return {
    status: 'success',
    data: writtenText(existed, relative, content),
    fileChange: keptChange(relative, before, content, before === null ? 'created' : 'replaced'),
  };
}

/**
 * A file the caller may write but not read: what it held is not kept either, since the history
 * is shown wherever the session is (as the approval card does not show it: `fileChange`).
 */
const deniedReading = (relative: string): ContentBefore => ({
  notRead: `reading ${relative} is denied to the caller, so what it held is not kept.`,
});

/**
 * The content a write is about to replace, up to the size a change is kept for. A read that fails
 * says so in the history; it never stops the write, which the model asked for.
 */
function replacedContent(fd: number, requested: string): ContentBefore {
  try {
    return readDescriptor(fd, requested, KEPT_FILE_MAX_BYTES);
  } catch (error) {
    if (error instanceof FileTooLargeError) return { notRead: `too large to keep: the file is over ${KEPT_FILE_MAX_BYTES / 1024} KiB.` };
    return { notRead: `the file as it was could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function writtenText(existed: boolean, relative: string, content: string): string {
  const bytes = Buffer.byteLength(content, 'utf8');
  const lines = content === '' ? 0 : content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
  return `${existed ? 'Overwrote' : 'Created'} ${relative} (${lines} lines, ${formatBytes(bytes)}).`;
}
