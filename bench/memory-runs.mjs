// Memory and file descriptors of a long-lived process: 2,000 runs, no close().
//
// A service embedding Legion sends each request to an agent in a fresh
// conversation of one session (as openai-agents' `run()` starts a fresh
// context each time), and never calls close(). Each run: the user's message,
// one tool call with its result, the answer — 4 messages appended on disk.
// Figures: RSS at run 100 and run 2,000 (and their difference), live heap
// after a full GC, open file descriptors (from /proc/self/fd). Needs
// --expose-gc, which run-all passes; run alone: node --expose-gc bench/memory-runs.mjs
//
// What fills the old generation between full GCs here (V8 11.3 on Node 20; see
// `node --trace-gc-nvp`, field `promoted`): objects built by a spread plus more
// properties (`{ ...a, b }`), objects with accessors, every new AbortSignal, and
// the entries of a long-lived Map whose keys keep changing (each discarded table
// links to its successor). The run path avoids all four; a young generation of
// 32 MB (V8's maximum, reached in any busy process) is most of what remains.
import { readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { getHeapSpaceStatistics } from 'node:v8';
import { z } from 'zod';
import { Legion, defineTool } from '@legion-collective/core';
import { ScriptedProvider, agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { printJson, removeDir, tempDir } from './lib.mjs';

const RUNS = Number(process.env.BENCH_MEMORY_RUNS ?? 2000);
const EARLY = 100;
const MB = 1024 * 1024;
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');

const lookup = defineTool({
  name: 'lookup',
  effect: 'read',
  description: 'Looks a word up.',
  inputSchema: z.object({ word: z.string() }),
  async execute(input) {
    return { status: 'success', data: `${input.word}: a word` };
  },
});

const openFds = () => readdirSync('/proc/self/fd').length;
// V8 doubles the young generation (both semi-spaces) once the bytes that survived scavenges since its
// last growth exceed one semi-space; that counter never resets otherwise, so the run at which it
// happens says how much per-run survivor churn (and the import's own survivors) cost. Read every
// CHECK_EVERY runs only: reading it allocates, and allocation is what this measures.
const CHECK_EVERY = 50;
const youngMB = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / MB;
function sample() {
  globalThis.gc();
  const memory = process.memoryUsage();
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((space) => [space.space_name.replace(/_space$/, ''), space.space_size / MB]),
  );
  return {
    rssMB: memory.rss / MB,
    heapUsedMB: memory.heapUsed / MB,
    heapTotalMB: memory.heapTotal / MB,
    externalMB: memory.external / MB,
    arrayBuffersMB: memory.arrayBuffers / MB,
    spaces,
    fds: openFds(),
  };
}

const root = tempDir('memory');
const legion = Legion.create({
  root,
  participants: [userParticipant('user'), agentParticipant('worker', { tools: ['lookup'] })],
  entryAgent: 'worker',
  env: {},
});
legion.tools.register(lookup);
const model = new ScriptedProvider(
  (request) =>
    request.messages.length === 1 ? { toolCalls: [{ id: 'l1', name: 'lookup', input: { word: 'legion' } }] } : { text: 'done' },
  'bench',
);
legion.providers.useFor('worker', model);
const session = await legion.sessions.create({ title: 'memory' });
const before = sample();
const youngAtStart = youngMB();
const youngGrowth = [];
let youngBefore = youngAtStart;
let early;
const started = performance.now();
const cpuBefore = process.cpuUsage();
try {
  for (let run = 1; run <= RUNS; run++) {
    const result = await session.send({ from: 'user', to: 'worker', message: `request ${run}`, conversation: `r${run}` });
    if (result.status !== 'success') throw new Error(`run ${run} failed: ${JSON.stringify(result)}`);
    // The scripted model keeps every request for tests to inspect; that is the harness's memory, not Legion's.
    model.requests.length = 0;
    if (run === EARLY) early = sample();
    if (run % CHECK_EVERY === 0 && youngMB() !== youngBefore) {
      youngBefore = youngMB();
      youngGrowth.push({ mb: youngBefore, after: run - CHECK_EVERY, by: run });
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const late = sample();
  const f = (value) => value.toFixed(1);
  console.log(
    `memory-runs — ${RUNS} runs in one process without close() (fresh conversation per run, 4 messages each, ${seconds.toFixed(1)} s)`,
  );
  console.log(
    `  RSS: start ${f(before.rssMB)} MB, run ${EARLY} ${f(early.rssMB)} MB, run ${RUNS} ${f(late.rssMB)} MB → growth ${EARLY}→${RUNS}: ${f(late.rssMB - early.rssMB)} MB (target < 30 MB; openai-agents-js: 143 MB in all)`,
  );
  console.log(
    `  live heap after GC: start ${f(before.heapUsedMB)} MB, run ${EARLY} ${f(early.heapUsedMB)} MB, run ${RUNS} ${f(late.heapUsedMB)} MB (target < 20 MB)`,
  );
  // Where RSS goes: V8's reserved heap by space, and what lies outside it (malloc, Buffers, code of node itself).
  const outside = (s) => s.rssMB - s.heapTotalMB;
  console.log(
    `  V8 heap reserved (heapTotal): run ${EARLY} ${f(early.heapTotalMB)} MB, run ${RUNS} ${f(late.heapTotalMB)} MB; external ${f(early.externalMB)} → ${f(late.externalMB)} MB (ArrayBuffers ${f(early.arrayBuffersMB)} → ${f(late.arrayBuffersMB)}); RSS outside the V8 heap ${f(outside(early))} → ${f(outside(late))} MB`,
  );
  console.log(
    `  heap spaces run ${EARLY} → ${RUNS} (MB): ${Object.keys(late.spaces)
      .map((name) => `${name} ${f(early.spaces[name] ?? 0)}→${f(late.spaces[name])}`)
      .join(', ')}`,
  );
  const grew = youngGrowth.map((growth) => `to ${f(growth.mb)} MB between runs ${growth.after} and ${growth.by}`).join(', ');
  console.log(
    `  young generation (V8 new space, both semi-spaces): ${f(youngAtStart)} MB at start${grew ? `, grew ${grew}` : ', never grew'}`,
  );
  console.log(`  open file descriptors: start ${before.fds}, run ${EARLY} ${early.fds}, run ${RUNS} ${late.fds} (target: not growing)`);
  // The machine may be shared: CPU time and the load say how much the wall time means.
  console.log(
    `  time: ${seconds.toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU (user+sys); load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  );
  printJson('memory-runs', {
    runs: RUNS,
    rssStartMB: Number(f(before.rssMB)),
    rssEarlyMB: Number(f(early.rssMB)),
    rssLateMB: Number(f(late.rssMB)),
    rssGrowthMB: Number(f(late.rssMB - early.rssMB)),
    heapLateMB: Number(f(late.heapUsedMB)),
    youngStartMB: youngAtStart,
    youngGrewByRun: youngGrowth.length > 0 ? youngGrowth[youngGrowth.length - 1].by : null,
    fdsEarly: early.fds,
    fdsLate: late.fds,
  });
} finally {
  removeDir(root);
}
