import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative } from 'node:path';
import { isInside } from '../../../store/index.js';
import { shownEntry } from './shown-entry.js';

/** Never searched: huge, generated, or version-control internals. */
export const GLOB_IGNORES: readonly string[] = ['**/node_modules/**', '**/.git/**'];

/** `hidden`: matches in the workspace left out because reading them is not allowed or they lead outside it (a match in a host folder is left out uncounted). */
export type GlobOutcome = { ok: true; files: string[]; hidden: number } | { ok: false; error: string };

/**
 * Files under `directory` (a real path inside the workspace) matching `pattern`,
 * as sorted workspace-relative paths. Symbolic links are not followed, and
 * every result must really lie inside the workspace (a pattern such as
 * `link/*` lists through a link's folder) and be `readable` by the caller's
 * policies, whatever tricks the pattern holds.
 */
export async function globInWorkspace(options: {
  root: string;
  directory: string;
  pattern: string;
  readable: (path: string) => boolean;
  signal?: AbortSignal;
}): Promise<GlobOutcome> {
  const { pattern } = options;
  if (isAbsolute(pattern))
    return { ok: false, error: `Pattern "${pattern}" is absolute; give one relative to the folder searched (e.g. "src/**/*.ts").` };
  // "..", also inside braces ("{..,x}/*"), would climb out of the folder.
  if (/(^|[/{,])\.\.($|[/},])/.test(pattern))
    return { ok: false, error: `Pattern "${pattern}" climbs out with "..": search from a higher folder instead (path).` };
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
  const files: string[] = [];
  let hidden = 0;
  for (const path of matches) {
    if (shownEntry(realRoot, path, options.readable)) files.push(relative(realRoot, path));
    // Found by reading a host folder (a pattern through a link out of the workspace): not even counted, as a
    // count would tell which names exist there.
    else if (foundInside(realRoot, path)) hidden++;
  }
  return { ok: true, files: files.sort(), hidden };
}

/** Whether the folder a match was listed from really lies inside the workspace. */
function foundInside(realRoot: string, path: string): boolean {
  try {
    return isInside(realRoot, realpathSync(dirname(path)));
  } catch {
    return false;
  }
}
