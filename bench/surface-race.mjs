// User surfaces racing on one approval, in one process: each round a scripted agent asks for one
// write, and SURFACES surfaces attached with legion.attachUser answer it at the same instant (half
// approve, half reject). Every round must record exactly one decision, carrying the winner's
// medium, and every other surface's signal must abort naming that winner. Also prints what
// offering an approval costs: the median turn with one surface that answers at once, and with
// SURFACES of them. Prints BENCH_JSON for run-all. ROUNDS=1000 node bench/surface-race.mjs for more.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { AnsweredElsewhereError, Legion, defineTool, initWorkspace } from '@legion-collective/core';
import { ScriptedProvider, agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { median, ms, printJson, removeDir, round, tempDir } from './lib.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 200);
const SURFACES = 8;
const TIMED_TURNS = Number(process.env.TIMED_TURNS ?? 200);

const root = tempDir('surface-race');
initWorkspace(root, { participants: [userParticipant(), agentParticipant('solo', { delegation: 'none' })], entryAgent: 'solo' });
const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
legion.tools.register(
  defineTool({
    name: 'write_note',
    description: 'w',
    effect: 'write',
    inputSchema: z.object({ n: z.number() }),
    execute: async ({ n }) => ({ status: 'success', data: `wrote ${n}` }),
  }),
);
// Each turn: one write (a fresh id, so loop detection stays quiet), then a reply.
let call = 0;
legion.providers.useFor(
  'solo',
  new ScriptedProvider(
    (request) =>
      request.messages.at(-1)?.content[0]?.type === 'tool_result'
        ? { text: 'done' }
        : { toolCalls: [{ id: `w${call}`, name: 'write_note', input: { n: call++ } }] },
    'bench',
  ),
);
const session = await legion.sessions.create();

/** Attaches `count` surfaces that answer together once all have been asked; returns their disposers and abort reasons. */
function attachRacers(count) {
  let asked = 0;
  let release;
  const released = new Promise((resolve) => (release = resolve));
  const reasons = new Map();
  const disposers = [];
  for (let index = 0; index < count; index++) {
    const medium = `surface-${index}`;
    disposers.push(
      legion.attachUser({
        medium,
        approve: async (requests, { signal }) => {
          signal.addEventListener('abort', () => reasons.set(medium, signal.reason), { once: true });
          if (++asked === count) release();
          await released;
          return requests.map((request) => ({
            id: request.id,
            decision: index % 2 === 0 ? 'approve' : 'reject',
            reason: `${medium} says no`,
          }));
        },
      }),
    );
  }
  return { reasons, detach: () => disposers.forEach((dispose) => dispose()) };
}

function decisionsByRequest() {
  const counts = new Map();
  for (const line of readFileSync(join(root, '.legion', 'sessions', session.id, 'approvals.jsonl'), 'utf8').split('\n')) {
    if (!line) continue;
    const record = JSON.parse(line);
    if (record.kind === 'request') counts.set(record.id, counts.get(record.id) ?? []);
    if (record.kind === 'decision') counts.get(record.requestId)?.push(record);
  }
  return counts;
}

let exactlyOne = 0;
let wrongAborts = 0;
for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex++) {
  const { reasons, detach } = attachRacers(SURFACES);
  await legion.send(session, `write ${roundIndex}`, { conversation: `race${roundIndex}` });
  detach();
  const decisions = [...decisionsByRequest().values()].at(-1) ?? [];
  if (decisions.length === 1) exactlyOne++;
  const winner = decisions[0]?.medium;
  const toldRight =
    reasons.size === SURFACES - 1 &&
    !reasons.has(winner) &&
    [...reasons.values()].every((reason) => reason instanceof AnsweredElsewhereError && reason.medium === winner);
  if (!toldRight) wrongAborts++;
}
const perRequest = [...decisionsByRequest().values()];
const several = perRequest.filter((decisions) => decisions.length > 1).length;
const none = perRequest.filter((decisions) => decisions.length === 0).length;

async function timedTurns(count) {
  const detachers = Array.from({ length: count }, (_, index) =>
    legion.attachUser({
      medium: `timed-${index}`,
      approve: async (requests) => requests.map((request) => ({ id: request.id, decision: 'approve' })),
    }),
  );
  const times = [];
  for (let turn = 0; turn < TIMED_TURNS; turn++) {
    const started = performance.now();
    await legion.send(session, 'write', { conversation: `timed${count}_${turn}` });
    times.push(performance.now() - started);
  }
  detachers.forEach((detach) => detach());
  return median(times.slice(Math.floor(TIMED_TURNS / 10)));
}
const oneSurfaceMs = await timedTurns(1);
const manySurfacesMs = await timedTurns(SURFACES);

await legion.close();
removeDir(root);

console.log(`surface race: ${ROUNDS} rounds of ${SURFACES} surfaces answering one approval at once`);
console.log(`  exactly one decision: ${exactlyOne} rounds; several: ${several}; none: ${none} (must be 0 and 0)`);
console.log(`  rounds where a loser was not told the winner's medium: ${wrongAborts} (must be 0)`);
console.log(
  `  a turn with one approval (2 model steps, the approval logged and claimed): ${ms(oneSurfaceMs)} with 1 surface, ${ms(manySurfacesMs)} with ${SURFACES} (median)`,
);
printJson('surface-race', {
  rounds: ROUNDS,
  surfaces: SURFACES,
  exactlyOne,
  several,
  none,
  wrongAborts,
  oneSurfaceMs: round(oneSurfaceMs),
  manySurfacesMs: round(manySurfacesMs),
});
process.exitCode = several === 0 && none === 0 && wrongAborts === 0 ? 0 : 1;
