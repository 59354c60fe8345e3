import { closeSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import { claimBeforeWrite } from './file-claim-check.js';
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
      const bytes = Buffer.byteLength(input.content, 'utf8');
      const lines = input.content === '' ? 0 : input.content.split('\n').length - (input.content.endsWith('\n') ? 1 : 0);
      return {
        status: 'success',
        data: `${existed ? 'Overwrote' : 'Created'} ${resolved.relative} (${lines} lines, ${formatBytes(bytes)}).`,
      };
    },
  });
}
