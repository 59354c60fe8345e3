// `npm run test:vscode`: the extension's tests in a real VS Code. Installs code-server into
// .cache/ once (skipping, with the reason, where it cannot be installed), builds and packages the
// extension and the two test-only extensions, runs e2e/ with vitest, and ends with one line:
// `vscode tests: N passed, N failed` (and how long it took).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCodeServer } from './code-server.mjs';

const started = Date.now();
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(PACKAGE, '..', '..');
const DIST = join(PACKAGE, 'dist');
const seconds = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    console.log(`vscode tests: 0 passed, 1 failed (${[command, ...args].join(' ')} exited ${result.status}) in ${seconds()}`);
    process.exit(1);
  }
}

const codeServer = ensureCodeServer();
if (codeServer.skip) {
  console.log(`vscode tests: SKIPPED: ${codeServer.skip}`);
  console.log('vscode tests: 0 passed, 0 failed (skipped)');
  process.exit(0);
}
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  console.log(`vscode tests: SKIPPED: no Chromium at ${chromium} (apt-get install chromium, or set CHROMIUM_PATH)`);
  console.log('vscode tests: 0 passed, 0 failed (skipped)');
  process.exit(0);
}

const vsce = join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
run(process.execPath, [join(PACKAGE, 'scripts', 'build.mjs')]);
run(
  process.execPath,
  [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', join(DIST, 'legion.vsix')],
  { cwd: PACKAGE, stdio: ['ignore', 'ignore', 'inherit'] },
);
for (const fixture of ['chat-host', 'tool-client']) {
  run(
    process.execPath,
    [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', join(DIST, `e2e-${fixture}.vsix`)],
    { cwd: join(PACKAGE, 'e2e', 'fixtures', fixture), stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

const report = join(DIST, 'e2e-results.json');
rmSync(report, { force: true });
spawnSync(
  process.execPath,
  [
    join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
    'run',
    '--config',
    join(PACKAGE, 'e2e', 'vitest.config.ts'),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
  ],
  {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, LEGION_CODE_SERVER_BIN: codeServer.bin, CHROMIUM_PATH: chromium },
  },
);
if (!existsSync(report)) {
  console.log(`vscode tests: 0 passed, 1 failed (vitest wrote no report) in ${seconds()}`);
  process.exit(1);
}
const results = JSON.parse(readFileSync(report, 'utf8'));
// A file that failed before its tests ran (a beforeAll) counts as one failure.
const failed =
  results.numFailedTests +
  results.testResults.filter((file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed')).length;
console.log(`vscode tests: ${results.numPassedTests} passed, ${failed} failed in ${seconds()}`);
process.exit(failed === 0 && results.numPassedTests > 0 ? 0 : 1);
