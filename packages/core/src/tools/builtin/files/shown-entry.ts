import { realpathSync } from 'node:fs';
import { relative } from 'node:path';
import { isInside } from '../../../storage/workspace-path.js';

/**
 * Whether a listing or search may show `path` (an absolute path found under
 * the real workspace root): it really lies inside the workspace, and the
 * caller may see it both as spelled and where it leads (a link inside the
 * workspace may point into a denied folder). The check every tool that
 * enumerates files makes, with the caller's `readable`.
 */
export function shownEntry(realRoot: string, path: string, readable: (path: string) => boolean, options: { outside?: 'hidden' | 'shown' } = {}): boolean {
  const real = realLocation(path);
  // `file_list` names a link that leads outside (or nowhere) without following it: nothing of the workspace shows.
  if (real === undefined || !isInside(realRoot, real)) return options.outside === 'shown' && readable(relative(realRoot, path));
  const spelled = relative(realRoot, path);
  const actual = relative(realRoot, real);
  return readable(spelled) && (actual === spelled || readable(actual));
}

function realLocation(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
