import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import { claimNoteForRead } from './file-claim-check.js';
import { readEditorOrDisk } from './editor-text.js';
import { formatBytes } from './fs-error.js';
import { looksBinary } from './text-file.js';
import { resolveToolPath } from '../../../store/index.js';

/** The most one read returns (default 10 MiB, the default `context.artifactMaxBytes`); past it, offset reads on. */
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

/**
 * Reads a text file of the workspace, by line range, with line numbers. It
 * returns whole lines, up to `maxBytes`: what is too large for the model's
 * context is the context's to evict (stored whole as an artifact, previewed).
 */
export function createFileReadTool(options: { maxBytes?: number | undefined } = {}): Tool {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return defineTool({
    name: 'file_read',
    description:
      'Read a text file in the workspace. Returns numbered lines: the whole file, or limit lines from offset (1-based first line). ' +
      'A result too large for your context is stored as an artifact and you get its first and last lines (read the rest with artifact_read, or here with offset and limit). ' +
      'Paths are relative to the workspace root. Binary files are refused; find text with file_grep instead of reading whole large files.',
    input: () =>
      z.object({
        path: z.string().min(1).describe('File path relative to the workspace root.'),
        offset: z.number().int().positive().optional().describe('First line to return (1-based).'),
        limit: z.number().int().positive().optional().describe('How many lines (default: to the end).'),
      }),
    concurrent: true,
    effect: 'read',
    async execute(input, context) {
      const resolved = resolveToolPath(context.workspaceRoot, input.path, 'read');
      if (!resolved.ok) return { status: 'error', error: resolved.error };
      const read = await readEditorOrDisk(context, resolved, input.path, `"${input.path}" is a directory; list it with file_list.`);
      if (read.status === 'error') return read;
      const { content } = read;
      if (looksBinary(content))
        return { status: 'error', error: `"${input.path}" looks binary (${formatBytes(content.length)}); file_read shows text only.` };
      const lines = content.toString('utf8').split('\n');
      if (lines.at(-1) === '') lines.pop();
      const first = input.offset ?? 1;
      if (first > Math.max(lines.length, 1))
        return { status: 'error', error: `"${input.path}" has ${lines.length} lines; offset ${first} is past the end.` };
      const slice = lines.slice(first - 1, first - 1 + (input.limit ?? lines.length));
      const shown: string[] = [];
      let bytes = 0;
      for (const [index, line] of slice.entries()) {
        const numberedLine = `${String(first + index).padStart(5)}  ${line}`;
        bytes += Buffer.byteLength(numberedLine, 'utf8') + 1;
        // Memory stays bounded; a single line larger than the bound is cut, saying so.
        if (bytes > maxBytes) {
          if (shown.length === 0) shown.push(`${numberedLine.slice(0, maxBytes)}… [line cut after ${maxBytes} characters]`);
          break;
        }
        shown.push(numberedLine);
      }
      const numbered = shown.join('\n');
      const last = first + shown.length - 1;
      const more = last < lines.length ? `\n(lines ${first}-${last} of ${lines.length}; read on with offset ${last + 1})` : '';
      const note = await claimNoteForRead(context, resolved.relative);
      return { status: 'success', data: `${resolved.relative} (${lines.length} lines)\n${numbered}${more}${note ? `\n${note}` : ''}` };
    },
  });
}
