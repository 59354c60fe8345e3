import { lstatSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import { describeFsError, formatBytes } from './fs-error.js';
import { resolveToolPath, specialKind } from '../../../store/index.js';
import { linkDestination, shownEntry } from './shown-entry.js';

const DEFAULT_ENTRIES = 200;
const MAX_ENTRIES = 2000;
/** Folders listed but not descended into: large, generated, and rarely what an agent is after. */
export const UNEXPANDED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/** Lists a folder of the workspace, optionally with everything below it. */
export function createFileListTool(): Tool {
  return defineTool({
    name: 'file_list',
    description:
      'List a folder of the workspace: folders end with "/", files show their size, symbolic links show where they lead (relative to the workspace root; a link out of the workspace is only marked so). ' +
      `Set recursive to include everything below (depth-first; .git and node_modules are shown but not expanded; links are not followed). ` +
      `At most max_entries entries (default ${DEFAULT_ENTRIES}, up to ${MAX_ENTRIES}); to find files by name use file_glob.`,
    input: () =>
      z.object({
        path: z.string().min(1).default('.').describe('Folder relative to the workspace root (default: the root).'),
        recursive: z.boolean().optional().describe('Include the contents of sub-folders.'),
        max_entries: z
          .number()
          .int()
          .positive()
          .max(MAX_ENTRIES)
          .optional()
          .describe(`Cap on entries returned (default ${DEFAULT_ENTRIES}).`),
      }),
    concurrent: true,
    effect: 'read',
    async execute(input, context) {
      const resolved = resolveToolPath(context.workspaceRoot, input.path, 'read');
      if (!resolved.ok) return { status: 'error', error: resolved.error };
      try {
        const kind = specialKind(statSync(resolved.absolute));
        if (kind === undefined) return { status: 'error', error: `"${input.path}" is a file; read it with file_read.` };
        if (kind !== 'a directory') return { status: 'error', error: `"${input.path}" is ${kind}, not a folder.` };
      } catch (error) {
        return { status: 'error', error: describeFsError(error, input.path, 'list') };
      }
      const limit = input.max_entries ?? DEFAULT_ENTRIES;
      const lines: string[] = [];
      const realRoot = realpathSync(context.workspaceRoot ?? resolved.absolute);
      // Names are content too: an entry the caller may not see is left out (and not descended into), as searches leave it out.
      const listing: Listing = {
        lines,
        limit,
        hidden: 0,
        shown: (path) => shownEntry(realRoot, path, context.readable, { outside: 'shown' }),
        link: (path) => linkDestination(realRoot, path, context.readable),
      };
      const truncated = walk(resolved.absolute, '', input.recursive ?? false, listing);
      const hiddenNote = listing.hidden > 0 ? `; ${listing.hidden} not shown: not allowed here` : '';
      const header = `${resolved.relative}/ (${lines.length}${truncated ? '+' : ''} entries${hiddenNote})`;
      const footer = truncated
        ? `\n(stopped at ${limit} entries; list a sub-folder${input.recursive ? ', drop recursive,' : ''} or raise max_entries)`
        : '';
      return { status: 'success', data: `${header}\n${lines.join('\n')}${footer}`.trimEnd() };
    },
  });
}

interface Listing {
  lines: string[];
  limit: number;
  /** Entries left out because the caller may not see them. */
  hidden: number;
  shown(path: string): boolean;
  /** How a symbolic link's destination is shown: never its raw text, which may be a host path. */
  link(path: string): string;
}

/** Appends entries depth-first; returns true when the limit cut the listing short. */
function walk(directory: string, prefix: string, recursive: boolean, listing: Listing): boolean {
  const { lines, limit } = listing;
  let entries: Dirent[];
  try {
    entries = readdirSync(directory, { withFileTypes: true });
  } catch (error) {
    lines.push(`${prefix}(unreadable: ${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return false;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (lines.length >= limit) return true;
    const path = join(directory, entry.name);
    const name = `${prefix}${entry.name}`;
    if (!listing.shown(path)) {
      listing.hidden++;
      continue;
    }
    if (entry.isSymbolicLink()) {
      lines.push(`${name} ${listing.link(path)}`);
    } else if (entry.isDirectory()) {
      const skipped = recursive && UNEXPANDED_FOLDERS.has(entry.name);
      lines.push(`${name}/${skipped ? ' (not expanded)' : ''}`);
      if (recursive && !skipped && walk(path, `${name}/`, recursive, listing)) return true;
    } else if (entry.isFile()) {
      lines.push(`${name}  ${formatBytes(safeSize(path))}`);
    } else {
      // A FIFO, socket or device: named for what it is, so that no one tries to read it.
      lines.push(`${name}  [${specialKind(entry) ?? 'a special file'}]`);
    }
  }
  return false;
}

function safeSize(path: string): number {
  try {
    return lstatSync(path).size;
  } catch {
    return 0;
  }
}
