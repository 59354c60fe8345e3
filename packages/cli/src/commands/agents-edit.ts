import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ConfigError, LEGION_DIR, LegionError } from '@legion-collective/core';
import { participantFilePath, saveParticipantFile } from '@legion-collective/core/management';
import { ask } from '../confirm.js';
import { openInEditor } from '../editor.js';
import { styleFor } from '../render/style.js';
import { resolveWorkspace } from '../workspace.js';
import { stderr } from '../render/terminal-text.js';

/**
 * `legion agents edit ID`: opens a copy of the participant file in $EDITOR and
 * puts it in place only once it validates. The copy — the user's edit — lives
 * in `.legion/run/edits/<id>.json` until it lands: a mistake is shown (file,
 * field, fix) with the choice to edit again or keep the old file, and a kept
 * edit is where the next `legion agents edit ID` starts from. Nothing typed is lost.
 */
export async function agentsEditCommand(id: string, options: { workspace?: string | undefined }): Promise<number> {
  const root = resolveWorkspace(options.workspace);
  const target = participantFilePath(root, id);
  if (!existsSync(target))
    throw new LegionError(
      'participant_not_found',
      `No participant file ${relative(root, target)}. Create one with "legion agents add ${id}".`,
    );
  const draft = join(root, LEGION_DIR, 'run', 'edits', `${id}.json`);
  const style = styleFor(process.stderr);
  if (existsSync(draft)) stderr.write(`Continuing your unsaved edit from ${relative(root, draft)}.\n`);
  else {
    mkdirSync(dirname(draft), { recursive: true });
    copyFileSync(target, draft);
  }
  for (;;) {
    try {
      openInEditor(draft);
    } catch (error) {
      stderr.write(`${error instanceof Error ? error.message : String(error)}\nYour edit so far is kept in ${relative(root, draft)}.\n`);
      return 1;
    }
    const text = readFileSync(draft, 'utf8');
    if (text === readFileSync(target, 'utf8')) {
      rmSync(draft, { force: true });
      stderr.write(`No changes to ${relative(root, target)}.\n`);
      return 0;
    }
    try {
      saveParticipantFile(root, id, text);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      stderr.write(`${style.red('✘')} ${error.message}\n`);
      const answer = process.stdin.isTTY ? await ask('(e)dit again, or (k)eep the old file? [e] ') : null;
      if (answer !== null && /^(e|edit)?$/i.test(answer)) continue;
      stderr.write(
        `${relative(root, target)} is unchanged. Your edit is kept in ${relative(root, draft)}; "legion agents edit ${id}" continues it.\n`,
      );
      return 1;
    }
    rmSync(draft, { force: true });
    stderr.write(`${style.green('✔')} Saved ${relative(root, target)}.\n`);
    return 0;
  }
}
