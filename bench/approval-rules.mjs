// What "approve always" rules cost a call that would otherwise ask: the AuthEngine's decision for
// a shell_run call by an agent, in a workspace with 0, 10 and 100 rule files
// (.legion/collective/approval-rules/), the matching one last. Rules are read only when a policy
// would ask; each read lists the folder and stats every file (a file that changed is re-parsed),
// so another process's new rule counts at once. Also: the first call after a rule file changed
// (the re-parse), and a call a policy lets run anyway (no rules read at all).
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Legion, initWorkspace } from '@legion-collective/core';
import { median, ms, p95, printJson, removeDir, round, tempDir } from './lib.mjs';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 2000);

function workspace(count) {
  const root = tempDir('legion-bench-rules-');
  initWorkspace(root, {});
  const dir = join(root, '.legion/collective/approval-rules');
  mkdirSync(dir, { recursive: true });
  for (let index = 0; index < count; index++) {
    const id = `rule_${String(index).padStart(4, '0')}`;
    const pattern = index === count - 1 ? 'git status*' : `tool-${index} *`;
    writeFileSync(
      join(dir, `${id}.json`),
      JSON.stringify({
        version: 1,
        id,
        participant: 'developer',
        tool: 'shell_run',
        pattern,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
        createdBy: 'user',
      }),
    );
  }
  return root;
}

function time(fn, samples) {
  const values = [];
  for (let index = 0; index < samples; index++) {
    const started = performance.now();
    fn();
    values.push(performance.now() - started);
  }
  return values;
}

const figures = {};
for (const count of [0, 10, 100]) {
  const root = workspace(count);
  const legion = Legion.open({ root, globalConfigFile: join(root, 'none.json') });
  const developer = legion.collective.require('developer');
  const shell = legion.tools.get('shell_run');
  const decide = () => legion.auth.evaluate({ participant: developer, tool: shell, input: { command: 'git status --short' } });
  if (decide().mode !== (count > 0 ? 'auto' : 'requires_approval'))
    throw new Error(`unexpected decision with ${count} rules: ${JSON.stringify(decide())}`);
  time(decide, 200);
  const values = time(decide, SAMPLES);
  figures[`rules${count}`] = { median: round(median(values)), p95: round(p95(values)) };
  console.log(`${String(count).padStart(3)} rules: shell_run decision median ${ms(median(values))}, p95 ${ms(p95(values))}`);
  if (count === 100) {
    const file = join(root, '.legion/collective/approval-rules/rule_0000.json');
    const changed = time(() => {
      writeFileSync(
        file,
        JSON.stringify({
          version: 1,
          id: 'rule_0000',
          participant: 'developer',
          tool: 'shell_run',
          pattern: `tool-${Math.random()} *`,
          createdAt: '2026-01-01T00:00:00.000Z',
          createdBy: 'user',
        }),
      );
      decide();
    }, 200);
    figures.changedFile = { median: round(median(changed)) };
    console.log(`    after one of 100 files changed (write + decision): median ${ms(median(changed))}`);
    const read = legion.tools.get('file_read');
    const reads = time(() => legion.auth.evaluate({ participant: developer, tool: read, input: { path: 'README.md' } }), SAMPLES);
    figures.autoCall = { median: round(median(reads)) };
    console.log(`    a call that runs without asking (file_read), rules not read: median ${ms(median(reads))}`);
  }
  await legion.close();
  removeDir(root);
}
printJson('approval-rules', figures);
