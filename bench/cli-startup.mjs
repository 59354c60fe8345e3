// Cold start of the `legion` binary, each run a new process.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { median, min, ms, printJson, removeDir, round, tempDir } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LEGION = join(ROOT, 'packages', 'cli', 'dist', 'legion.js');
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 12);
const VERSION = JSON.parse(readFileSync(join(ROOT, 'packages', 'cli', 'package.json'), 'utf8')).version;

/** Runs one command RUNS times (after one untimed run that warms the OS file cache); returns wall-clock times in ms. */
function time(label, makeArgs, check) {
  const times = [];
  for (let i = -1; i < RUNS; i++) {
    const { args, cleanup } = makeArgs();
    try {
      const started = performance.now();
      const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 16 * 1024 * 1024 });
      const elapsed = performance.now() - started;
      if (result.status !== 0) throw new Error(`${label} exited with ${result.status}:\n${result.stderr}${result.stdout}`);
      check(result.stdout);
      if (i >= 0) times.push(elapsed);
    } finally {
      cleanup?.();
    }
  }
  console.log(`  ${label.padEnd(44)} median ${ms(median(times)).padStart(8)}   min ${ms(min(times)).padStart(8)}`);
  return { medianMs: round(median(times), 1), minMs: round(min(times), 1) };
}

console.log(`cli-startup — cold start of node ${join('packages', 'cli', 'dist', 'legion.js')} (${RUNS} runs each, new process each run; wall clock including process exit)`);
const figures = {};
figures.nodeBare = time('node -e 0 (reference)', () => ({ args: ['-e', '0'] }), () => {});
figures.version = time('legion --version', () => ({ args: [LEGION, '--version'] }), (out) => {
  if (out.trim() !== VERSION) throw new Error(`--version printed ${JSON.stringify(out)}`);
});
figures.help = time('legion --help', () => ({ args: [LEGION, '--help'] }), (out) => {
  if (!out.includes('Usage: legion')) throw new Error(`--help printed ${JSON.stringify(out.slice(0, 200))}`);
});
figures.demo = time('legion demo --pace 0 --dir <fresh temp dir>', () => {
  const dir = tempDir('demo');
  return { args: [LEGION, 'demo', '--pace', '0', '--dir', dir], cleanup: () => removeDir(dir) };
}, (out) => {
  if (!out.includes('conversations saved in')) throw new Error(`demo printed ${JSON.stringify(out.slice(-300))}`);
});
console.log(`  legion's own cost over bare node: --version +${ms(figures.version.medianMs - figures.nodeBare.medianMs)}, --help +${ms(figures.help.medianMs - figures.nodeBare.medianMs)}, demo +${ms(figures.demo.medianMs - figures.nodeBare.medianMs)}`);
printJson('cli-startup', figures);
