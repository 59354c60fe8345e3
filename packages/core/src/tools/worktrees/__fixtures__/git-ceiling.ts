import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll } from 'vitest';

/**
 * For the suite it is called in: git looks for a repository no higher than `folder` (by default the
 * temporary folder), as `GIT_CEILING_DIRECTORIES` says. A workspace a test makes there is then in
 * no git repository unless the test makes one, even where the temporary folder is inside one (CI's
 * TMPDIR is inside the clone).
 */
export function useGitCeiling(folder: () => string = tmpdir): void {
  const ceiling = process.env['GIT_CEILING_DIRECTORIES'];
  beforeAll(() => {
    process.env['GIT_CEILING_DIRECTORIES'] = folder();
  });
  afterAll(() => {
    if (ceiling === undefined) delete process.env['GIT_CEILING_DIRECTORIES'];
    else process.env['GIT_CEILING_DIRECTORIES'] = ceiling;
  });
}

/** git in `root`, its output as text. */
export function git(root: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' });
}

/** A git repository in the temporary folder, with its own identity (CI has none) and notes.txt holding `notes` (not committed). */
export function notesRepository(prefix: string, notes: string): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  git(root, 'init', '--quiet');
  git(root, 'config', 'user.name', 'Legion Test');
  git(root, 'config', 'user.email', 'test@legion.invalid');
  git(root, 'config', 'commit.gpgsign', 'false');
  writeFileSync(join(root, 'notes.txt'), notes);
  return root;
}
