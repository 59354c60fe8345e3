import { resolve } from 'node:path';
import { findWorkspaceRoot, LegionError } from '@legion-collective/core';

/** The workspace a command works in: the one named, or the nearest one above the current directory. */
export function resolveWorkspace(explicit: string | undefined): string {
  if (explicit) {
    const root = resolve(explicit);
    if (!findWorkspaceRoot(root)) throw new LegionError('no_workspace', `${root} has no .legion/ directory. Run "legion init ${explicit}" first.`);
    return root;
  }
  const root = findWorkspaceRoot(process.cwd());
  if (!root) throw new LegionError('no_workspace', `No .legion/ workspace in ${process.cwd()} or above it. Run "legion init" to create one.`);
  return root;
}
