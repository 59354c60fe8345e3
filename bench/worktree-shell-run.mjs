// What a Legion worktree adds to a sandboxed shell_run: `shell_run { command: "true" }` through the
// built tool with the sandbox on, rooted at a repository's main tree and at a worktree of an isolated
// turn (where the sandbox also finds the worktree's git layout and binds what `git commit` needs:
// sandbox-git.ts), and a `git commit` inside the worktree. Rounds alternate so load drifts alike.
// Where the sandbox cannot work here, the bench says why and measures nothing.
// ROUNDS=100 node bench/worktree-shell-run.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, p95, printJson, removeDir, round, tempDir } from './lib.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 100);
const dist = (path) => fileURLToPath(new URL(`../packages/core/dist/${path}`, import.meta.url));
const { createShellRunTool } = await import(dist('tools/builtin/shell/shell-run.js'));
const { sandboxSupport } = await import(dist('tools/child-processes/sandbox.js'));
const { Worktrees } = await import(dist('tools/worktrees/Worktrees.js'));

const support = sandboxSupport();
if (!support.works) {
  console.log(`the sandbox cannot work here: ${support.reason}`);
  printJson('worktree-shell-run', { sandboxWorks: false, why: support.reason });
  process.exit(0);
}

const root = tempDir('worktree-shell');
process.env.GIT_CEILING_DIRECTORIES = join(root, '..');
const git = (...args) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
mkdirSync(join(root, '.legion'));
git('init', '--quiet');
git('config', 'user.name', 'Bench');
git('config', 'user.email', 'bench@legion.invalid');
git('config', 'commit.gpgsign', 'false');
writeFileSync(join(root, 'notes.txt'), 'one\n');
git('add', 'notes.txt');
git('commit', '--quiet', '-m', 'start');
const made = await new Worktrees(root).create({ agentId: 'bench', callerId: 'user', sessionId: 'bench', conversationId: 'user__bench' });
if (!made.ok) throw new Error(made.error);

const shell = createShellRunTool({ sandbox: () => ({ mode: 'on', network: 'off' }) });
const contextAt = (workspaceRoot) => ({
  callerId: 'bench',
  conversation: { sessionId: 'bench', conversationId: 'user__bench', initiator: 'user', responder: 'bench' },
  toolUseId: 'bench',
  frames: [],
  signal: new AbortController().signal,
  workspaceRoot,
  readable: () => true,
});
const places = { mainTree: contextAt(root), worktree: contextAt(made.root) };

async function once(command, context) {
  const started = performance.now();
  const result = await shell.execute({ command }, context);
  const elapsed = performance.now() - started;
  if (result.status !== 'success') throw new Error(`shell_run failed: ${result.error}`);
  return elapsed;
}

for (let round = 0; round < 10; round++) for (const context of Object.values(places)) await once('true', context);
const times = { mainTree: [], worktree: [], commitInWorktree: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, context] of Object.entries(places)) times[name].push(await once('true', context));
  times.commitInWorktree.push(await once(`echo ${round} >> notes.txt && git commit -q -am "round ${round}"`, places.worktree));
}
removeDir(root);

const stats = (values) => ({ medianMs: round(median(values), 2), p95Ms: round(p95(values), 2) });
const figures = {
  rounds: ROUNDS,
  mainTree: stats(times.mainTree),
  worktree: stats(times.worktree),
  commitInWorktree: stats(times.commitInWorktree),
  addedMedianMs: round(median(times.worktree) - median(times.mainTree), 2),
};
console.log(`sandboxed shell_run "true" (${ROUNDS} rounds, alternating)`);
console.log(`  main tree: ${figures.mainTree.medianMs} ms median, ${figures.mainTree.p95Ms} ms p95`);
console.log(
  `  worktree:  ${figures.worktree.medianMs} ms median, ${figures.worktree.p95Ms} ms p95 (adds ${figures.addedMedianMs} ms median)`,
);
console.log(`  git commit in the worktree: ${figures.commitInWorktree.medianMs} ms median, ${figures.commitInWorktree.p95Ms} ms p95`);
printJson('worktree-shell-run', figures);
