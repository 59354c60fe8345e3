import { spawnSync } from 'node:child_process';
import { LegionError } from '@legion-collective/core';

/**
 * Opens `file` in the user's editor and waits for it to close. `$VISUAL`, then
 * `$EDITOR`, then `vi`, run the way git runs them (`sh -c '$EDITOR "$@"'`), so
 * an editor with arguments (`code --wait`) works and the file name is never
 * re-parsed by the shell. Returns normally only when the editor exited 0.
 */
export function openInEditor(file: string, env: NodeJS.ProcessEnv = process.env): void {
  const editor = env.VISUAL || env.EDITOR || 'vi';
  const editorRun = spawnSync('/bin/sh', ['-c', `${editor} "$@"`, editor, file], { stdio: 'inherit', env });
  if (editorRun.error)
    throw new LegionError(
      'editor_failed',
      `Could not start the editor "${editor}": ${editorRun.error.message}. Set $EDITOR to an editor on your PATH.`,
    );
  if (editorRun.status !== 0) {
    throw new LegionError(
      'editor_failed',
      `The editor "${editor}" exited with ${editorRun.status === null ? `signal ${editorRun.signal}` : `status ${editorRun.status}`}; nothing was saved.`,
    );
  }
}
