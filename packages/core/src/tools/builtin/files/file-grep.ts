import { realpathSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import { describeFsError } from './fs-error.js';
import { looksBinary } from './text-file.js';
import { globInWorkspace } from './workspace-glob.js';
import { isInside, resolveInWorkspace, readRegularFileSync, specialKind } from '../../../store/index.js';

const DEFAULT_MATCHES = 100;
const MAX_MATCHES = 1000;
/** Larger files are skipped (and counted): they are data or build output, not what a text search is for. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Long matched lines are shown around the match only. */
const MAX_SHOWN_LINE = 240;
/** Files searched between yields to the event loop, so that a timeout or cancel can land. */
const FILES_PER_YIELD = 50;

/** Searches file contents by regular expression. */
export function createFileGrepTool(): Tool {
  return defineTool({
    name: 'file_grep',
    description:
      'Search the contents of workspace files with a regular expression (RE2 syntax, like JavaScript without backreferences or lookaround; e.g. "function\\s+load", "TODO|FIXME"). ' +
      'Returns "path:line: text" per matching line, files in sorted order. Narrow with glob (e.g. "**/*.ts") and path (a folder or one file). ' +
      `At most max_matches lines (default ${DEFAULT_MATCHES}); binary files, files over 2 MB, node_modules, .git and dot-folders (unless the glob names them) are skipped.`,
    input: () =>
      z.object({
        pattern: z.string().min(1).describe('Regular expression (RE2 syntax: no backreferences or lookaround), matched against each line.'),
        path: z.string().min(1).default('.').describe('Folder or file to search, relative to the workspace root (default: the root).'),
        glob: z.string().min(1).optional().describe('Only files matching this glob, relative to path (default "**/*").'),
        ignore_case: z.boolean().optional().describe('Match without regard to case.'),
        max_matches: z
          .number()
          .int()
          .positive()
          .max(MAX_MATCHES)
          .optional()
          .describe(`Cap on matching lines returned (default ${DEFAULT_MATCHES}).`),
      }),
    concurrent: true,
    effect: 'read',
    async execute(input, context) {
      const root = context.workspaceRoot;
      if (!root) return { status: 'error', error: 'No workspace: file tools need one.' };
      // RE2 matches in linear time: a model's pattern like (a+)+$ cannot freeze the event loop, where no timeout could fire.
      const { RE2JS } = await import('re2js');
      let regex: InstanceType<typeof RE2JS>;
      try {
        regex = RE2JS.compile(input.pattern, input.ignore_case ? RE2JS.CASE_INSENSITIVE : 0);
      } catch (error) {
        return {
          status: 'error',
          error: `Invalid regular expression /${input.pattern}/: ${(error as Error).message}. Patterns use RE2 syntax: no backreferences (\\1) or lookaround ((?=…), (?<!…)); search for the plain part and filter the matches instead.`,
        };
      }
      const resolved = resolveInWorkspace(root, input.path);
      if (!resolved.ok) return { status: 'error', error: resolved.error };
      const realRoot = realpathSync(root);
      let files: string[];
      let hidden = 0;
      try {
        const stats = statSync(resolved.real);
        const kind = specialKind(stats);
        if (kind !== undefined && kind !== 'a directory')
          return { status: 'error', error: `"${input.path}" is ${kind}, not a regular file; file_grep searches only regular files.` };
        if (stats.isDirectory()) {
          const outcome = await globInWorkspace({
            root,
            directory: resolved.real,
            pattern: input.glob ?? '**/*',
            readable: (path) => context.readable(path),
            signal: context.signal,
          });
          if (!outcome.ok) return { status: 'error', error: outcome.error };
          files = outcome.files;
          hidden = outcome.hidden;
        } else if (context.readable(resolved.relative) && context.readable(relative(realRoot, resolved.real))) {
          files = [relative(realRoot, resolved.real)];
        } else {
          return { status: 'error', error: `Reading "${input.path}" is not allowed here, so it cannot be searched.` };
        }
      } catch (error) {
        return { status: 'error', error: describeFsError(error, input.path, 'search') };
      }
      const limit = input.max_matches ?? DEFAULT_MATCHES;
      const lines: string[] = [];
      const matchedFiles = new Set<string>();
      let skipped = 0;
      let truncated = false;
      for (const [index, file] of files.entries()) {
        if (index % FILES_PER_YIELD === FILES_PER_YIELD - 1) await new Promise((resolve) => setImmediate(resolve));
        if (context.signal.aborted) return { status: 'error', error: 'file_grep was cancelled.' };
        const content = readSearchable(realRoot, join(realRoot, file));
        if (!content) {
          skipped++;
          continue;
        }
        const fileLines = content.split('\n');
        for (const [lineIndex, line] of fileLines.entries()) {
          const match = regex.matcher(line);
          if (!match.find()) continue;
          if (lines.length >= limit) {
            truncated = true;
            break;
          }
          matchedFiles.add(file);
          lines.push(`${file}:${lineIndex + 1}: ${excerpt(line, match.start())}`);
        }
        if (truncated) break;
      }
      const notes = [
        ...(skipped > 0 ? [`${skipped} binary, oversized or unreadable file${skipped === 1 ? '' : 's'} skipped`] : []),
        ...(hidden > 0
          ? [`${hidden} file${hidden === 1 ? '' : 's'} not searched: reading ${hidden === 1 ? 'it is' : 'them is'} not allowed here`]
          : []),
      ];
      const skippedNote = notes.length > 0 ? ` (${notes.join('; ')})` : '';
      if (lines.length === 0)
        return {
          status: 'success',
          data: `No matches for /${input.pattern}/ in ${files.length} file${files.length === 1 ? '' : 's'}${skippedNote}.`,
        };
      const summary = `${lines.length}${truncated ? '+' : ''} matching line${lines.length === 1 ? '' : 's'} in ${matchedFiles.size} file${matchedFiles.size === 1 ? '' : 's'}${skippedNote}`;
      const footer = truncated ? `\n(stopped at ${limit} matches; narrow the pattern, path or glob, or raise max_matches)` : '';
      return { status: 'success', data: `${summary}:\n${lines.join('\n')}${footer}` };
    },
  });
}

/** The text of a file worth searching, or undefined for binaries, huge files, special files and anything that escapes the workspace. */
function readSearchable(realRoot: string, path: string): string | undefined {
  try {
    const real = realpathSync(path);
    if (!isInside(realRoot, real)) return undefined;
    // Never blocks: a FIFO or device (even one swapped in since the search listed a file here) is refused, and so is a file over the size.
    const content = readRegularFileSync(real, { maxBytes: MAX_FILE_BYTES });
    return looksBinary(content) ? undefined : content.toString('utf8');
  } catch {
    return undefined;
  }
}

function excerpt(line: string, matchIndex: number): string {
  const trimmed = line.trimEnd();
  if (trimmed.length <= MAX_SHOWN_LINE) return trimmed;
  const start = Math.max(0, Math.min(matchIndex - MAX_SHOWN_LINE / 4, trimmed.length - MAX_SHOWN_LINE));
  return `${start > 0 ? '…' : ''}${trimmed.slice(start, start + MAX_SHOWN_LINE)}${start + MAX_SHOWN_LINE < trimmed.length ? '…' : ''}`;
}
