import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { LEGION_DIR } from './workspace-paths.js';

export type ResolvedPath =
  | {
      ok: true;
      /** The path as asked for, under the real workspace root (symlinks not followed). */
      absolute: string;
      /** Relative to the workspace root, for messages (`.` for the root). */
      relative: string;
      /** Where the path really leads once every symlink on it is followed, even a dangling one. */
      real: string;
    }
  | { ok: false; error: string };

/** Symlink hops followed before a path counts as a loop (Linux's own limit is 40). */
const MAX_LINK_HOPS = 40;

/**
 * Resolves a path a model gave against the workspace root and refuses anything
 * that leaves it: `..`, absolute paths elsewhere, and symlinks (of the file or
 * any parent, dangling ones included) that lead outside.
 */
export function resolveInWorkspace(root: string, requested: string): ResolvedPath {
  const realRoot = realpathSync(root);
  const givenRoot = resolve(root);
  // An absolute path under the root as the caller spelled it (e.g. /tmp/x where /tmp is a link) is still inside.
  const absolute =
    isAbsolute(requested) && givenRoot !== realRoot && isInside(givenRoot, requested)
      ? join(realRoot, relative(givenRoot, resolve(requested)))
      : resolve(realRoot, requested);
  if (!isInside(realRoot, absolute))
    return { ok: false, error: `"${requested}" is outside the workspace; use a path relative to the workspace root.` };
  const real = realLocation(absolute, 0);
  if (real === undefined) return { ok: false, error: `"${requested}" cannot be resolved (a symbolic link loop, or no permission).` };
  if (!isInside(realRoot, real)) return { ok: false, error: `"${requested}" leads outside the workspace through a symbolic link.` };
  return { ok: true, absolute, relative: relative(realRoot, absolute) || '.', real };
}

/**
 * Like `resolveInWorkspace`, for tools that change files: also refuses the
 * workspace root itself and Legion's own state under `.legion/` (roster,
 * config, sessions), which agents change only through the collective tools.
 */
export function resolveWritableInWorkspace(root: string, requested: string): ResolvedPath {
  const resolved = resolveInWorkspace(root, requested);
  if (!resolved.ok) return resolved;
  const realRoot = realpathSync(root);
  if (resolved.relative === '.' || resolved.real === realRoot)
    return { ok: false, error: `"${requested}" is the workspace root itself; name a file or folder inside it.` };
  // Both the spelled path and where it leads: a link inside the workspace may point into .legion/.
  if (isLegionInternal(resolved.relative) || isLegionInternal(relative(realRoot, resolved.real))) {
    return {
      ok: false,
      error: `"${requested}" is inside ${LEGION_DIR}/, Legion's own state (roster, config, sessions); file tools cannot change it. Use the collective tools to change participants.`,
    };
  }
  return resolved;
}

/** Whether `path` is `root` or below it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Whether a workspace-relative path is `.legion` or below it (case-insensitively, for macOS and Windows volumes). */
export function isLegionInternal(workspaceRelative: string): boolean {
  const first = workspaceRelative.split(sep)[0] ?? '';
  return first.toLowerCase() === LEGION_DIR;
}

/**
 * Where `path` leads with every symlink followed, for paths that may not exist
 * yet. `realpath` alone stops at the first missing part, which would let a
 * dangling link (`out -> /etc/new-file`) be written through unchecked.
 */
function realLocation(path: string, hops: number): string | undefined {
  if (hops > MAX_LINK_HOPS) return undefined;
  try {
    return realpathSync(path);
  } catch {
    // Not all of it exists, or a link on it dangles: look at the last part on its own.
  }
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    stat = undefined;
  }
  const parent = dirname(path);
  if (stat?.isSymbolicLink()) {
    const realParent = parent === path ? parent : realLocation(parent, hops);
    return realParent === undefined ? undefined : realLocation(resolve(realParent, readlinkSync(path)), hops + 1);
  }
  // It exists but realpath failed on it (permission, loop further up): do not guess.
  if (stat) return undefined;
  if (parent === path) return path;
  const realParent = realLocation(parent, hops);
  return realParent === undefined ? undefined : join(realParent, basename(path));
}

/** A file tool's path: refused without a workspace, else resolved inside it (and for writes, checked writable). */
export function resolveToolPath(workspaceRoot: string | undefined, requested: string, access: 'read' | 'write'): ResolvedPath {
  if (!workspaceRoot) return { ok: false, error: 'No workspace: file tools need one.' };
  return access === 'write' ? resolveWritableInWorkspace(workspaceRoot, requested) : resolveInWorkspace(workspaceRoot, requested);
}
