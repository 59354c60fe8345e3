// Cold start of the management commands (`legion agents list`, `config show`, `tools list`, `doctor`)
// in a fresh `legion init` workspace, each run a new process, against bare `node -e 0`.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { median, min, ms, printJson, removeDir, round, tempDir } from './lib.mjs';

const LEGION = join(fileURLToPath(new URL('..', import.meta.url)), 'packages', 'cli', 'dist', 'legion.js');
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 12);
const workspace = tempDir('management');
// A key in the environment so that doctor passes (it is never sent: doctor calls no model).
const env = { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(workspace, '.xdg'), ANTHROPIC_API_KEY: 'bench-key-not-sent' };

function time(label, args, { expectStatus = 0 } = {}) {
  const times = [];
  for (let i = -1; i < RUNS; i++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { cwd: workspace, encoding: 'utf8', env });
    const elapsed = performance.now() - started;
    if (result.status !== expectStatus) throw new Error(`${label} exited with ${result.status}:\n${result.stderr}${result.stdout}`);
    if (i >= 0) times.push(elapsed);
  }
  console.log(`  ${label.padEnd(32)} median ${ms(median(times)).padStart(8)}   min ${ms(min(times)).padStart(8)}`);
  return { medianMs: round(median(times), 1), minMs: round(min(times), 1) };
}

try {
  if (spawnSync(process.execPath, [LEGION, 'init'], { cwd: workspace, env }).status !== 0) throw new Error('legion init failed');
  console.log(`management-commands — cold start in a fresh workspace (${RUNS} runs each, new process each run)`);
  const figures = {};
  figures.nodeBare = time('node -e 0 (reference)', ['-e', '0']);
  figures.agentsList = time('legion agents list', [LEGION, 'agents', 'list']);
  figures.configShow = time('legion config show --layers', [LEGION, 'config', 'show', '--layers']);
  figures.toolsList = time('legion tools list', [LEGION, 'tools', 'list']);
  figures.doctor = time('legion doctor --json', [LEGION, 'doctor', '--json']);
  const over = (figure) => `+${ms(figure.medianMs - figures.nodeBare.medianMs)}`;
  console.log(
    `  over bare node: agents list ${over(figures.agentsList)}, config show ${over(figures.configShow)}, tools list ${over(figures.toolsList)}, doctor ${over(figures.doctor)}`,
  );
  printJson('management-commands', figures);
} finally {
  removeDir(workspace);
}
