// What a claim check adds to a file tool call, on the file backend: a write claims its file first
// (one `take`: a turn's first write of a file, its writes of it again, a refusal), a read looks for
// another turn's claim (`get`, usually of an unclaimed file), and a turn's end gives its claims back.
// The store calls alone, as `TurnFileClaims` makes them; a file tool's own work is not included.
import { FileSessionBackend } from '@legion-collective/core';
import { median, p95, printJson, removeDir, round, tempDir } from './lib.mjs';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 2000);
const root = tempDir('legion-bench-claims-');
const backend = new FileSessionBackend({ root });
const claims = backend.fileClaims;
const claim = (path, conversationId = 'lead__alpha') => ({
  version: 1,
  path,
  sessionId: 'bench',
  conversationId,
  participantId: conversationId.split('__')[1],
  doing: 'Benchmark the claims',
  since: new Date().toISOString(),
});

/** Microseconds per call of `run`, each timed alone. */
async function time(run) {
  const samples = [];
  for (let index = 0; index < ITERATIONS; index++) {
    const started = process.hrtime.bigint();
    await run(index);
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  return { medianUs: round(median(samples), 1), p95Us: round(p95(samples), 1) };
}

try {
  // Warm-up: the folder exists, the code is compiled.
  for (let index = 0; index < 200; index++) await claims.take(claim(`warm/${index}.md`));
  await claims.releaseConversation('bench', 'lead__alpha');

  const firstWrite = await time(async (index) => {
    await claims.take(claim(`first/${index}.md`));
  });
  const againWrite = await time(async () => {
    await claims.take(claim('again.md'));
  });
  const refusedWrite = await time(async () => {
    await claims.take(claim('again.md', 'lead__beta'));
  });
  const readUnclaimed = await time(async (index) => claims.get(`unclaimed/${index}.md`));
  const started = process.hrtime.bigint();
  await claims.releaseConversation('bench', 'lead__alpha');
  const releaseMs = Number(process.hrtime.bigint() - started) / 1e6;
  printJson('file-claims', {
    iterations: ITERATIONS,
    firstWriteOfAFile: firstWrite,
    writeOfAFileTheTurnHolds: againWrite,
    writeRefused: refusedWrite,
    readOfAnUnclaimedFile: readUnclaimed,
    turnEndReleasing: { claims: ITERATIONS + 1, ms: round(releaseMs, 1) },
  });
} finally {
  await backend.close();
  removeDir(root);
}
