import { closeSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import { claimBeforeWrite } from './file-claim-check.js';
import { editorWrites, writeThroughEditor } from './editor-text.js';
import { describeFsError, formatBytes } from './fs-error.js';
import { openInWorkspace, replaceContent, resolveToolPath } from '../../../store/index.js';

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
        // The editor writes it (its buffer, saved or not, as it does): the disk is the editor's to change.
        const refused = await writeThroughEditor(context, resolved.absolute, input.path, input.content);
        if (refused !== undefined) return { status: 'error', error: refused };
        return { status: 'success', data: writtenText(existed, resolved.relative, input.content) };
      }
      try {
        if (existed && statSync(resolved.absolute).isDirectory()) return { status: 'error', error: `"${input.path}" is a directory.` };
        mkdirSync(dirname(resolved.absolute), { recursive: true });
        // Opened without following links and verified where it landed: a swapped folder cannot redirect the write.
        const { fd } = openInWorkspace(context.workspaceRoot!, resolved, input.path, 'write');
        try {
          replaceContent(fd, input.content);
        } finally {
          closeSync(fd);
        }
      } catch (error) {
        return { status: 'error', error: describeFsError(error, input.path, 'write') };
      }
      return { status: 'success', data: writtenText(existed, resolved.relative, input.content) };
    },
  });
}

function writtenText(existed: boolean, relative: string, content: string): string {
  const bytes = Buffer.byteLength(content, 'utf8');
  const lines = content === '' ? 0 : content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
  return `${existed ? 'Overwrote' : 'Created'} ${relative} (${lines} lines, ${formatBytes(bytes)}).`;
}
