import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

export type ResolvedPath = { ok: true; absolute: string; relative: string } | { ok: false; error: string };

/**
 * Resolves a path a model gave against the workspace root and refuses anything
 * that leaves it: `..`, absolute paths elsewhere, and symlinks (of the file or
 * any parent) that lead outside.
 */
export function resolveInWorkspace(root: string, requested: string): ResolvedPath {
  const realRoot = realpathSync(root);
  const absolute = resolve(realRoot, requested);
  if (!isInside(realRoot, absolute)) return { ok: false, error: `"${requested}" is outside the workspace; use a path relative to ${realRoot}.` };
  // Follow symlinks through the deepest part of the path that exists.
  let existing = absolute;
  for (;;) {
    try {
      const real = realpathSync(existing);
      if (!isInside(realRoot, real)) return { ok: false, error: `"${requested}" leads outside the workspace through a symbolic link.` };
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  return { ok: true, absolute, relative: relative(realRoot, absolute) || '.' };
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
