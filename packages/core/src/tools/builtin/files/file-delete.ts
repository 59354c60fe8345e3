import { lstatSync, readdirSync, realpathSync, rmSync, unlinkSync, rmdirSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool } from '../../tool.js';
import { claimBeforeWrite } from './file-claim-check.js';
import { describeFsError } from './fs-error.js';
import { isInside, isLegionInternal, resolveToolPath } from '../../../store/index.js';

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
          unlinkSync(resolved.absolute);
          return { status: 'success', data: `Deleted ${resolved.relative}.` };
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
