import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Collective } from '../../team/index.js';
import { WorkspacePaths } from '../../store/index.js';

/**
 * Whether `root` is inside a git work tree: a `.git` folder (or a worktree's `.git` file) here or
 * above, as git itself looks: not up into a folder `GIT_CEILING_DIRECTORIES` names.
 */
function inGitRepository(root: string): boolean {
  const ceilings = new Set(
    (process.env['GIT_CEILING_DIRECTORIES'] ?? '')
      .split(':')
      .filter(Boolean)
      .map((path) => resolve(path)),
  );
  for (let folder = resolve(root); ; folder = dirname(folder)) {
    if (existsSync(join(folder, '.git'))) return true;
    if (dirname(folder) === folder || ceilings.has(dirname(folder))) return false;
  }
}

/**
 * The agents whose file says `"isolation": "worktree"` in a workspace that is in no git repository,
 * each as a line naming its file and the fix: said when the workspace opens, not first when a
 * delegation to it is refused (which it is, with a result saying the same).
 */
export function isolationProblems(root: string, collective: Collective): string[] {
  const isolated = collective.agents().filter((agent) => agent.isolation === 'worktree');
  if (isolated.length === 0 || inGitRepository(root)) return [];
  const paths = new WorkspacePaths(root);
  return isolated.map(
    (agent) =>
      `${paths.display(paths.participantFile(agent.id))}: "isolation": "worktree" needs a git repository, and ${paths.root} is in none: messages and delegations to ${agent.id} are refused. Fix: run \`git init\` and commit, or remove "isolation".`,
  );
}
