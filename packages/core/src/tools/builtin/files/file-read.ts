import { closeSync, fstatSync } from 'node:fs';
import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import { describeFsError, formatBytes } from './fs-error.js';
import { looksBinary } from './text-file.js';
import { openInWorkspace, readDescriptor } from '../../../storage/safe-open.js';
import { resolveToolPath } from '../../../storage/workspace-path.js';

const DEFAULT_LINES = 2000;
/** Minified or generated lines would eat the context a few at a time. */
const MAX_LINE_CHARS = 2000;

/** Reads a text file of the workspace, by line range, with line numbers. */
export function createFileReadTool(): Tool {
  return defineTool({
    name: 'file_read',
    description:
      'Read a text file in the workspace. Returns numbered lines; by default the first 2000, each cut at 2000 characters. ' +
      'Use offset (1-based first line) and limit to page through long files. Paths are relative to the workspace root. ' +
      'Binary files are refused; find text with file_grep instead of reading whole large files.',
    inputSchema: z.object({
      path: z.string().min(1).describe('File path relative to the workspace root.'),
      offset: z.number().int().positive().optional().describe('First line to return (1-based).'),
      limit: z.number().int().positive().optional().describe(`How many lines (default ${DEFAULT_LINES}).`),
    }),
    concurrent: true,
    effect: 'read',
    async execute(input, context) {
      const resolved = resolveToolPath(context.workspaceRoot, input.path, 'read');
      if (!resolved.ok) return { status: 'error', error: resolved.error };
      let content: Buffer;
      try {
        const { fd } = openInWorkspace(context.workspaceRoot!, resolved, input.path, 'read');
        try {
          if (fstatSync(fd).isDirectory()) return { status: 'error', error: `"${input.path}" is a directory; list it with file_list.` };
          content = readDescriptor(fd);
        } finally {
          closeSync(fd);
        }
      } catch (error) {
        return { status: 'error', error: describeFsError(error, input.path, 'read') };
      }
      if (looksBinary(content)) return { status: 'error', error: `"${input.path}" looks binary (${formatBytes(content.length)}); file_read shows text only.` };
      const lines = content.toString('utf8').split('\n');
      if (lines.at(-1) === '') lines.pop();
      const first = input.offset ?? 1;
      if (first > Math.max(lines.length, 1)) return { status: 'error', error: `"${input.path}" has ${lines.length} lines; offset ${first} is past the end.` };
      const slice = lines.slice(first - 1, first - 1 + (input.limit ?? DEFAULT_LINES));
      const numbered = slice.map((line, index) => `${String(first + index).padStart(5)}  ${cutLine(line)}`).join('\n');
      const last = first + slice.length - 1;
      const more = last < lines.length ? `\n(lines ${first}-${last} of ${lines.length}; read on with offset ${last + 1})` : '';
      return { status: 'success', data: `${resolved.relative} (${lines.length} lines)\n${numbered}${more}` };
    },
  });
}

function cutLine(line: string): string {
  return line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS)}… [${line.length - MAX_LINE_CHARS} more characters]`;
}
