import { Legion } from '@legion-collective/core';
import { resolveWorkspace } from '../workspace.js';
import { style } from '../render/style.js';

export async function sessionsCommand(workspace: string | undefined): Promise<number> {
  const legion = Legion.open({ root: resolveWorkspace(workspace) });
  const sessions = await legion.sessions.list();
  if (sessions.length === 0) process.stdout.write('No sessions yet. Start one with: legion run "hello"\n');
  for (const meta of sessions) {
    const count = (await (await legion.sessions.get(meta.id)).listConversations()).length;
    process.stdout.write(`${meta.id}  ${style.dim(`last active ${meta.lastActiveAt}`)}  ${count} conversation${count === 1 ? '' : 's'}\n`);
  }
  // A broken session is listed here, not silently missing.
  for (const warning of legion.warnings) process.stderr.write(`warning: ${warning}\n`);
  return 0;
}
