// What containing a command costs: the time from spawning a command (`/bin/sh -c true`) through
// core's spawnGroup to its exit, with each containment this machine has (a PID namespace through
// bubblewrap, the process group with an environment marker, swept at exit), and the difference.
// A bare spawn is the floor. Each containment runs in a Node process of its own (containment is chosen once per process).
// ROUNDS=300 node bench/command-containment.mjs
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, p95, printJson, round } from './lib.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 200);
const CORE = fileURLToPath(new URL('../packages/core/dist/index.js', import.meta.url));
const SPAWN_GROUP = fileURLToPath(new URL('../packages/core/dist/tools/child-processes/spawn-group.js', import.meta.url));

const program = `
const { containment } = await import(${JSON.stringify(CORE)});
const { spawnGroup } = await import(${JSON.stringify(SPAWN_GROUP)});
const started = performance.now();
const kind = containment().kind;
const detectMs = performance.now() - started;
const times = [];
for (let round = 0; round < ${ROUNDS}; round++) {
  const start = performance.now();
  const child = spawnGroup('/bin/sh', ['-c', 'true'], { cwd: process.cwd(), env: process.env, command: 'true' });
  child.stdout.resume();
  child.stderr.resume();
  await new Promise((resolve) => child.once('close', resolve));
  times.push(performance.now() - start);
}
// The floor: a bare spawn, no group, gate, supervisor or containment.
const { spawn } = await import('node:child_process');
const bare = [];
for (let round = 0; round < ${ROUNDS}; round++) {
  const start = performance.now();
  const child = spawn('/bin/sh', ['-c', 'true'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('close', resolve));
  bare.push(performance.now() - start);
}
process.stdout.write(JSON.stringify({ kind, detectMs, times, bare }));
`;

function measure(env) {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', program], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout);
}

const contained = measure({ LEGION_CONTAINMENT: '' });
const fallback = measure({ LEGION_CONTAINMENT: 'process-group' });
const figures = {
  rounds: ROUNDS,
  kind: contained.kind,
  detectMs: round(contained.detectMs, 2),
  medianMs: round(median(contained.times), 2),
  p95Ms: round(p95(contained.times), 2),
  fallbackKind: fallback.kind,
  fallbackMedianMs: round(median(fallback.times), 2),
  overheadMs: round(median(contained.times) - median(fallback.times), 2),
  bareMedianMs: round(median(contained.bare), 2),
};
console.log(`command containment (${ROUNDS} × /bin/sh -c true through spawnGroup)`);
console.log(
  `  ${figures.kind}: ${figures.medianMs} ms median, ${figures.p95Ms} ms p95 per command (detected once in ${figures.detectMs} ms)`,
);
console.log(`  ${figures.fallbackKind}: ${figures.fallbackMedianMs} ms median per command`);
console.log(`  a bare spawn (no group, gate or supervisor): ${figures.bareMedianMs} ms median`);
console.log(`  overhead of the PID namespace over ${figures.fallbackKind}: ${figures.overheadMs} ms per command`);
printJson('command-containment', figures);
