import { realpathSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { isInside } from '../../../storage/workspace-path.js';

/** Never searched: huge, generated, or version-control internals. */
export const GLOB_IGNORES: readonly string[] = ['**/node_modules/**', '**/.git/**'];

export type GlobOutcome = { ok: true; files: string[] } | { ok: false; error: string };

/**
 * Files under `directory` (a real path inside the workspace) matching `pattern`,
 * as sorted workspace-relative paths. Symbolic links are neither followed nor
 * returned, and every result is checked to lie inside the workspace, whatever
 * tricks the pattern holds.
 */
export async function globInWorkspace(options: { root: string; directory: string; pattern: string; signal?: AbortSignal }): Promise<GlobOutcome> {
  const { pattern } = options;
  if (isAbsolute(pattern)) return { ok: false, error: `Pattern "${pattern}" is absolute; give one relative to the folder searched (e.g. "src/**/*.ts").` };
  // "..", also inside braces ("{..,x}/*"), would climb out of the folder.
  if (/(^|[/{,])\.\.($|[/},])/.test(pattern)) return { ok: false, error: `Pattern "${pattern}" climbs out with "..": search from a higher folder instead (path).` };
  const realRoot = realpathSync(options.root);
  let matches: string[];
  try {
    // Loaded on first use: a file search should not cost every Legion start ~40 ms.
    const { glob } = await import('tinyglobby');
    matches = await glob([pattern], {
      cwd: options.directory,
      absolute: true,
      dot: false,
      onlyFiles: true,
      followSymbolicLinks: false,
      ignore: [...GLOB_IGNORES],
      expandDirectories: false,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    return { ok: false, error: `Bad pattern "${pattern}": ${error instanceof Error ? error.message : String(error)}` };
  }
  const files = matches
    .filter((path) => isInside(realRoot, path))
    .map((path) => relative(realRoot, path))
    .sort();
  return { ok: true, files };
}
