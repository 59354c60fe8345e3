import { readlinkSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { isInside } from '../../../store/index.js';

/**
 * Whether a listing or search may show `path` (an absolute path found under
 * the real workspace root): it really lies inside the workspace, and the
 * caller may see it both as spelled and where it leads (a link inside the
 * workspace may point into a denied folder). The check every tool that
 * enumerates files makes, with the caller's `readable`.
 */
export function shownEntry(
  realRoot: string,
  path: string,
  readable: (path: string) => boolean,
  options: { outside?: 'hidden' | 'shown' } = {},
): boolean {
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

/**
 * Where a symbolic link found in a listing leads, in words that name nothing
 * outside the workspace. The link's own text may be a host path (`/home/…`,
 * `../../..`) and so may the place it reaches; neither is the model's to see
 * (it sees the workspace, not the machine). So: a link into the workspace
 * shows where it leads relative to the workspace root, whatever its text; a
 * dangling one shows where it would lead, when that lies inside and the
 * caller may see it; anything else is only said to lead outside.
 */
export function linkDestination(realRoot: string, path: string, readable: (path: string) => boolean): string {
  const real = realLocation(path);
  if (real !== undefined)
    return isInside(realRoot, real) ? `-> ${relative(realRoot, real) || '.'}` : '(symbolic link leading outside the workspace)';
  let text: string;
  try {
    text = readlinkSync(path);
  } catch {
    return '(unreadable symbolic link)';
  }
  // Dangling (or a loop): resolved by its text from the folder holding it, then from the real place of the
  // deepest folder on that way that exists: a folder link on the way may lead out (or into a denied folder).
  const lexical = resolve(dirname(path), text);
  if (!isInside(realRoot, lexical)) return '(symbolic link leading outside the workspace)';
  const reached = realFolderWay(lexical);
  if (reached === undefined || !isInside(realRoot, reached)) return '(symbolic link leading outside the workspace)';
  const destination = relative(realRoot, reached) || '.';
  // A name the caller may not see stays unseen, even as the text of a link to nothing.
  return readable(destination) ? `-> ${destination} (missing)` : '(symbolic link to nothing, leading where this caller may not look)';
}

/** `path` with its deepest existing folder replaced by where that folder really is (undefined: none resolves). */
function realFolderWay(path: string): string | undefined {
  let folder = dirname(path);
  for (;;) {
    const real = realLocation(folder);
    if (real !== undefined) return join(real, relative(folder, path));
    const up = dirname(folder);
    if (up === folder) return undefined;
    folder = up;
  }
}
