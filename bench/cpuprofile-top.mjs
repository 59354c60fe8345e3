// Where a `.cpuprofile` (V8's format: `node --cpu-prof`, Chromium's Profiler) spent its time: the
// functions with the most self time, and the files, each as a share of the samples. Not a bench
// itself: it reads the profiles `BENCH_SERVE_PROFILE=DIR node bench/serve-events.mjs` writes.
//   node bench/cpuprofile-top.mjs FILE [how many rows, 25]
import { readFileSync } from 'node:fs';

const [file, rowsArgument] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/cpuprofile-top.mjs FILE.cpuprofile [rows]');
  process.exit(2);
}
const rows = Number(rowsArgument ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
// Sample i lasted timeDeltas[i + 1] (the delta before the next sample), in µs.
const selfMicros = new Map();
for (let index = 0; index < profile.samples.length; index += 1) {
  const id = profile.samples[index];
  const delta = profile.timeDeltas[index + 1] ?? 0;
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + delta);
}
const total = [...selfMicros.values()].reduce((sum, value) => sum + value, 0);
const byFunction = new Map();
const byFile = new Map();
for (const [id, micros] of selfMicros) {
  const { callFrame } = nodes.get(id);
  const where = callFrame.url.replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*\/packages\//, 'packages/') || '(native)';
  const name = `${callFrame.functionName || '(anonymous)'}  ${where}:${callFrame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  byFile.set(where, (byFile.get(where) ?? 0) + micros);
}
const print = (title, map) => {
  console.log(title);
  for (const [name, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows))
    console.log(`  ${((micros / total) * 100).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(6)} ms  ${name}`);
};
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`);
print('self time by function:', byFunction);
print('self time by file:', byFile);
