import { statSync } from 'node:fs';
import { resolveInWorkspace } from '../../../store/index.js';

export type WorkingFolder = { ok: true; real: string; relative: string } | { ok: false; error: string };

/**
 * The folder a command starts in: inside the workspace, symlinks included. It
 * confines where a command starts, not what it does: `cd /` stays possible,
 * which is why shell tools need approval by default.
 */
export function resolveWorkingFolder(root: string | undefined, cwd: string | undefined): WorkingFolder {
  if (!root) return { ok: false, error: 'No workspace: shell tools need one.' };
  const resolved = resolveInWorkspace(root, cwd ?? '.');
  if (!resolved.ok) return resolved;
  let isDirectory = false;
  try {
    isDirectory = statSync(resolved.real).isDirectory();
  } catch {
    // a missing folder is reported below like a file would be
  }
  if (!isDirectory) return { ok: false, error: `cwd "${cwd}" is not a folder of the workspace.` };
  return { ok: true, real: resolved.real, relative: resolved.relative };
}
