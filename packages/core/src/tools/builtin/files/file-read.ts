import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import { resolveInWorkspace } from './workspace-path.js';

const DEFAULT_LINES = 2000;

/** Reads a text file of the workspace, by line range, with line numbers. */
export function createFileReadTool(): Tool {
  return defineTool({
    name: 'file_read',
    description:
      'Read a text file in the workspace. Returns numbered lines; by default the first 2000. ' +
      'Use offset (1-based first line) and limit to page through long files. Paths are relative to the workspace root.',
    inputSchema: z.object({
      path: z.string().min(1).describe('File path relative to the workspace root.'),
      offset: z.number().int().positive().optional().describe('First line to return (1-based).'),
      limit: z.number().int().positive().optional().describe(`How many lines (default ${DEFAULT_LINES}).`),
    }),
    concurrent: true,
    effect: 'read',
    async execute(input, context) {
      if (!context.workspaceRoot) return { status: 'error', error: 'No workspace: file tools need one.' };
      const resolved = resolveInWorkspace(context.workspaceRoot, input.path);
      if (!resolved.ok) return { status: 'error', error: resolved.error };
      let text: string;
      try {
        if (statSync(resolved.absolute).isDirectory()) return { status: 'error', error: `"${input.path}" is a directory.` };
        text = readFileSync(resolved.absolute, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        return { status: 'error', error: code === 'ENOENT' ? `"${input.path}" does not exist.` : `Cannot read "${input.path}": ${code ?? String(error)}` };
      }
      const lines = text.split('\n');
      if (lines.at(-1) === '') lines.pop();
      const first = input.offset ?? 1;
      const slice = lines.slice(first - 1, first - 1 + (input.limit ?? DEFAULT_LINES));
      const numbered = slice.map((line, index) => `${String(first + index).padStart(5)}  ${line}`).join('\n');
      const last = first + slice.length - 1;
      const more = last < lines.length ? `\n(lines ${first}-${last} of ${lines.length}; read on with offset ${last + 1})` : '';
      return { status: 'success', data: `${resolved.relative} (${lines.length} lines)\n${numbered}${more}` };
    },
  });
}
