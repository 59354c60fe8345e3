import type { ToolContext } from '../../tool.js';

/**
 * Claims a workspace-relative path for the caller's turn before a write tool changes it: the error
 * to return (naming the holder and how to proceed) when another agent's turn holds it, else
 * undefined. Without a session that keeps claims (a tool run alone), every write goes ahead.
 */
export async function claimBeforeWrite(context: ToolContext, tool: string, path: string): Promise<string | undefined> {
  const claims = context.session.fileClaims;
  if (!claims) return undefined;
  const outcome = await claims.claimForWrite(path, {
    callerId: context.callerId,
    conversation: context.conversation,
    frames: context.frames,
    tool,
  });
  return outcome.ok ? undefined : outcome.error;
}

/** The note a read carries when another agent's running turn holds the file: what was read may change. */
export async function claimNoteForRead(context: ToolContext, path: string): Promise<string | undefined> {
  return context.session.fileClaims?.noteForRead(path, {
    callerId: context.callerId,
    conversation: context.conversation,
    frames: context.frames,
    tool: 'file_read',
  });
}
