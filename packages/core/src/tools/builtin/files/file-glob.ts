import { statSync } from 'node:fs';
import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import { describeFsError } from './fs-error.js';
import { globInWorkspace } from './workspace-glob.js';
import { resolveInWorkspace } from '../../../store/index.js';

const DEFAULT_RESULTS = 200;
const MAX_RESULTS = 2000;

/** Finds files by glob pattern. */
export function createFileGlobTool(): Tool {
  return defineTool({
    name: 'file_glob',
    description:
      'Find files in the workspace by glob pattern, e.g. "**/*.ts", "src/**/*.{js,json}", "*.md". ' +
      'Returns sorted paths relative to the workspace root. Files and folders starting with "." match only when the pattern names the dot (".github/**"); ' +
      `node_modules and .git are skipped and symbolic links are not followed. At most max_results paths (default ${DEFAULT_RESULTS}). ` +
      'To search inside files use file_grep.',
    input: () =>
      z.object({
        pattern: z.string().min(1).describe('Glob pattern relative to path.'),
        path: z.string().min(1).default('.').describe('Folder to search from, relative to the workspace root (default: the root).'),
        max_results: z
          .number()
          .int()
          .positive()
          .max(MAX_RESULTS)
          .optional()
          .describe(`Cap on paths returned (default ${DEFAULT_RESULTS}).`),
      }),
    concurrent: true,
    effect: 'read',
    async execute(input, context) {
      if (!context.workspaceRoot) return { status: 'error', error: 'No workspace: file tools need one.' };
      const resolved = resolveInWorkspace(context.workspaceRoot, input.path);
      if (!resolved.ok) return { status: 'error', error: resolved.error };
      try {
        if (!statSync(resolved.real).isDirectory()) return { status: 'error', error: `"${input.path}" is not a folder.` };
      } catch (error) {
        return { status: 'error', error: describeFsError(error, input.path, 'search') };
      }
      const outcome = await globInWorkspace({
        root: context.workspaceRoot,
        directory: resolved.real,
        pattern: input.pattern,
        readable: (path) => context.readable(path),
        signal: context.signal,
      });
      if (!outcome.ok) return { status: 'error', error: outcome.error };
      const limit = input.max_results ?? DEFAULT_RESULTS;
      const { files } = outcome;
      const hiddenNote =
        outcome.hidden > 0
          ? `\n(${outcome.hidden} match${outcome.hidden === 1 ? '' : 'es'} not shown: reading ${outcome.hidden === 1 ? 'it is' : 'them is'} not allowed here)`
          : '';
      if (files.length === 0)
        return { status: 'success', data: `No files match "${input.pattern}" in ${resolved.relative}/.${hiddenNote}` };
      const shown = files.slice(0, limit);
      const more = files.length > limit ? `\n(${files.length - limit} more not shown; narrow the pattern or raise max_results)` : '';
      return {
        status: 'success',
        data: `${files.length === 1 ? '1 file matches' : `${files.length} files match`} "${input.pattern}":\n${shown.join('\n')}${more}${hiddenNote}`,
      };
    },
  });
}
