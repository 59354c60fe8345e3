// `legion completion bash|zsh|fish|powershell` prints a script that makes the shell complete
// legion's commands, options and session ids; the script asks `legion complete -- <words>` for
// the candidates at each Tab. @bomb.sh/tab makes both from commander's own definitions.
import tab from '@bomb.sh/tab/commander';
import type { Complete } from '@bomb.sh/tab';
import type { Command } from 'commander';
import { findWorkspaceRoot, type Legion } from '@legion-collective/core';
import { type SessionMeta } from '@legion-collective/core/backend';
import { openLegion } from './workspace.js';
import { resolve } from 'node:path';

/** The name of the command that prints the script; `complete` (hidden) answers the script. */
export const COMPLETION_COMMAND = 'completion';

/** Session-id arguments of subcommands (`legion sessions show <id>`), by the command's path. */
const SESSION_ARGUMENTS = [
  ['sessions show', 'id'],
  ['sessions rm', 'id'],
] as const;

/**
 * Adds `completion` and the hidden `complete` to `program`. For `complete`, the workspace's
 * session ids, most recently active first, are read before the arguments are parsed (the
 * library asks for candidates synchronously) and offered for every `--session` and session-id
 * argument.
 */
export async function addShellCompletion(program: Command, words: readonly string[]): Promise<void> {
  const completion = tab(program, { completionCommandName: COMPLETION_COMMAND });
  if (words[0] !== 'complete') return;
  const sessions = await workspaceSessions(words);
  const offer = (complete: Complete): void => {
    for (const meta of sessions) complete(meta.id, meta.title ?? `last active ${meta.lastActiveAt}`);
  };
  for (const command of [completion, ...completion.commands.values()]) {
    const option = command.options.get('session');
    if (option) option.handler = offer;
  }
  for (const [path, name] of SESSION_ARGUMENTS) {
    const argument = completion.commands.get(path)?.arguments.get(name);
    if (argument) argument.handler = offer;
  }
}

/**
 * The sessions of the workspace the completed command line names (`-w DIR`), else of the
 * nearest one above the current directory; none when there is none or it cannot be read: a
 * Tab press must never print an error into the user's command line.
 */
async function workspaceSessions(words: readonly string[]): Promise<SessionMeta[]> {
  const named = words.findIndex((word) => word === '-w' || word === '--workspace');
  const explicit = named === -1 ? undefined : words[named + 1];
  const root = findWorkspaceRoot(explicit ? resolve(explicit) : process.cwd());
  if (!root) return [];
  let legion: Legion | undefined;
  try {
    legion = await openLegion({ root });
    return await legion.sessions.list();
  } catch {
    return [];
  } finally {
    await legion?.close();
  }
}
