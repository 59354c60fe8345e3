import { closeSync, lstatSync, readdirSync, realpathSync, rmSync, unlinkSync, rmdirSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool, type ToolContext } from '../../tool.js';
import { claimBeforeWrite } from './file-claim-check.js';
import { describeFsError } from './fs-error.js';
import { KEPT_FILE_MAX_BYTES, keptChange, type ContentBefore } from './kept-change.js';
import {
  FileTooLargeError,
  isInside,
  isLegionInternal,
  openInWorkspace,
  readDescriptor,
  resolveToolPath,
  type ResolvedPath,
} from '../../../store/index.js';

/** Deletes a file, a symbolic link (not its target), or a folder. */
export function createFileDeleteTool(): Tool {
  return defineTool({
    name: 'file_delete',
    description:
      'Delete a file or symbolic link (the link itself, never its target) in the workspace. ' +
      'A folder is deleted only when empty, or with recursive set to delete it and everything in it. ' +
      'There is no undo. The workspace root and .legion/ cannot be deleted.',
    input: () =>
      z.object({
        path: z.string().min(1).describe('Path relative to the workspace root.'),
        recursive: z.boolean().optional().describe('Delete a non-empty folder with all its contents.'),
      }),
    effect: 'write',
    policyAliases: ['file_write'],
    async execute(input, context) {
      const resolved = resolveToolPath(context.workspaceRoot, input.path, 'write');
      if (!resolved.ok) return { status: 'error', error: resolved.error };
      const claimed = await claimBeforeWrite(context, 'file_delete', resolved.relative);
      if (claimed !== undefined) return { status: 'error', error: claimed };
      try {
        // Node has no unlinkat: check where the parent folder really is right before removing from it.
        const realRoot = realpathSync(context.workspaceRoot!);
        const parent = realpathSync(dirname(resolved.absolute));
        if (!isInside(realRoot, parent) || isLegionInternal(relative(realRoot, parent))) {
          return {
            status: 'error',
            error: `"${input.path}" changed while it was checked and now leads outside the workspace or into .legion/; nothing was deleted.`,
          };
        }
        const stat = lstatSync(resolved.absolute);
        if (!stat.isDirectory()) {
          // A regular file's content is kept for the history (a link's target is not what is deleted).
          const before = stat.isFile() ? deletedContent(context, resolved, input.path) : undefined;
          unlinkSync(resolved.absolute);
          const fileChange = before === undefined ? undefined : keptChange(resolved.relative, before, null, 'deleted');
          return { status: 'success', data: `Deleted ${resolved.relative}.`, ...(fileChange === undefined ? {} : { fileChange }) };
        }
        const count = readdirSync(resolved.absolute).length;
        if (count > 0 && !input.recursive) {
          return {
            status: 'error',
            error: `"${input.path}" is a folder with ${count} entries; set recursive to delete it with its contents.`,
          };
        }
        // rm -r removes links inside the folder, never what they point to.
        if (count === 0) rmdirSync(resolved.absolute);
        else rmSync(resolved.absolute, { recursive: true });
        return { status: 'success', data: `Deleted folder ${resolved.relative}/${count > 0 ? ' and its contents' : ''}.` };
      } catch (error) {
        return { status: 'error', error: describeFsError(error, input.path, 'delete') };
      }
    },
  });
}

/**
 * What a deleted file held, for the history: up to the size a change is kept for, and only when
 * the caller may read it (a file it may delete but not read is not shown by deleting it).
 */
function deletedContent(context: ToolContext, resolved: Extract<ResolvedPath, { ok: true }>, requested: string): ContentBefore {
  if (!context.readable(resolved.relative))
    return { notRead: `reading ${resolved.relative} is denied to the caller, so its content is not kept.` };
  try {
    // Opened as the other file tools open theirs: a link swapped in meanwhile cannot lead the read out of the workspace.
    const { fd } = openInWorkspace(context.workspaceRoot!, resolved, requested, 'read');
    try {
      return readDescriptor(fd, requested, KEPT_FILE_MAX_BYTES);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (error instanceof FileTooLargeError) return { notRead: `too large to keep: the file is over ${KEPT_FILE_MAX_BYTES / 1024} KiB.` };
    return { notRead: `the file as it was could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
}
