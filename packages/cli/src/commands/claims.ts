import { isAbsolute, relative, resolve, sep } from 'node:path';
import { claimsTable } from '../render/claim-lines.js';
import { styleFor } from '../render/style.js';
import { stdout } from '../render/terminal-text.js';
import { openLegion, resolveWorkspace } from '../workspace.js';

interface ClaimsOptions {
  workspace?: string;
  json?: boolean;
}

/** `legion claims`: the files running turns hold, in every process on the workspace's store. */
export async function claimsCommand(options: ClaimsOptions): Promise<number> {
  const legion = await openLegion({ root: resolveWorkspace(options.workspace) });
  try {
    const claims = await legion.listFileClaims();
    if (options.json) {
      stdout.json({ claims });
      return 0;
    }
    stdout.write(`${claimsTable(claims)}\n`);
    if (claims.length > 0)
      stdout.write(
        styleFor(process.stdout).dim(
          "\nA claim ends with its turn. Free one now with: legion claims release PATH (the holder's next write claims it again)\n",
        ),
      );
    return 0;
  } finally {
    await legion.close();
  }
}

/** `legion claims release PATH`: frees a file a running turn holds, so another agent may write it. */
export async function releaseClaimCommand(path: string, options: ClaimsOptions): Promise<number> {
  const root = resolveWorkspace(options.workspace);
  const legion = await openLegion({ root });
  try {
    const claim = await legion.releaseFileClaim(workspaceRelative(legion.paths.root, path));
    if (options.json) stdout.json({ released: claim });
    else stdout.write(`Released ${claim.path} (held by ${claim.participantId} since ${claim.since}, in session ${claim.sessionId}).\n`);
    return 0;
  } finally {
    await legion.close();
  }
}

/** A path as claims name it: relative to the workspace root, `/`-separated; given relative to the current folder or absolute. */
function workspaceRelative(root: string, path: string): string {
  const absolute = isAbsolute(path) ? path : resolve(process.cwd(), path);
  const inside = relative(root, absolute);
  // Outside the workspace: left as given, so the error names what the person typed.
  if (inside.startsWith('..') || isAbsolute(inside)) return path;
  return inside.split(sep).join('/');
}
