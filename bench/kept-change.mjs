// What keeping a file change for the history costs a file tool call: the unified diff `keptChange`
// computes (three lines of context, bounded) for an edit of one line, and for a rewrite of every
// line, of files from 4 KiB to the 256 KiB bound, and the size of what is kept with the result.
import { KEPT_FILE_MAX_BYTES, keptChange } from '../packages/core/dist/tools/builtin/files/kept-change.js';
import { median, p95, printJson, round } from './lib.mjs';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 50);

/** A text file of about `bytes`, in lines of 64 bytes. */
function file(bytes, tag = '') {
  const lines = [];
  for (let index = 0; lines.length * 64 < bytes; index++)
    lines.push(`${tag}line ${index} ${'x'.repeat(64 - 7 - String(index).length - tag.length)}`);
  return `${lines.join('\n')}\n`;
}

/** Milliseconds per `keptChange` call, each timed alone, and the kept record's size. */
function time(before, after) {
  const samples = [];
  let kept;
  for (let index = 0; index < ITERATIONS; index++) {
    const started = process.hrtime.bigint();
    kept = keptChange('bench.txt', before, after, 'replaced');
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return {
    medianMs: round(median(samples), 3),
    p95Ms: round(p95(samples), 3),
    status: kept.status,
    keptBytes: JSON.stringify(kept).length,
  };
}

const figures = {};
for (const bytes of [4 * 1024, 64 * 1024, KEPT_FILE_MAX_BYTES]) {
  const before = file(bytes);
  const middle = before.indexOf('\n', before.length / 2) + 1;
  const edited = `${before.slice(0, middle)}an edited line\n${before.slice(before.indexOf('\n', middle) + 1)}`;
  figures[`${bytes / 1024}KiB`] = { editOfOneLine: time(before, edited), rewriteOfEveryLine: time(before, file(bytes, 'new ')) };
}
printJson('kept-change', { iterations: ITERATIONS, ...figures });
