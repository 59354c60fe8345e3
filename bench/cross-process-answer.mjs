// A question and an approval answered from another Legion on the same workspace (files), as a
// browser's server or `legion answer` would: process A's surface waits, Legion B records the answer
// (`session.answerQuestion`, `session.answerApprovals`); timed from B's record to A's surface being
// withdrawn (A noticed it through the backend's watch hint, or the 250 ms poll behind it), p50/p95.
// Also the median turn with one question answered at once by a local surface (recorded, claimed).
// Two Legion instances in one node process: the same files and notifications two processes would see.
// ROUNDS=100 node bench/cross-process-answer.mjs
import { join } from 'node:path';
import { z } from 'zod';
import { Legion, defineTool, initWorkspace } from '@legion-collective/core';
import { ScriptedProvider, agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { median, ms, p95, printJson, removeDir, round, tempDir } from './lib.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 40);
const TIMED_TURNS = Number(process.env.TIMED_TURNS ?? 100);

const root = tempDir('cross-process-answer');
initWorkspace(root, { participants: [userParticipant(), agentParticipant('solo')], entryAgent: 'solo' });
const open = () => Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
const a = open();
const b = open();
a.tools.register(
  defineTool({
    name: 'write_note',
    description: 'w',
    effect: 'write',
    inputSchema: z.object({ n: z.number() }),
    execute: async ({ n }) => ({ status: 'success', data: `wrote ${n}` }),
  }),
);
let call = 0;
// A message starting with "ask" makes solo ask the user; any other one makes it write a note (which needs approval).
a.providers.useFor(
  'solo',
  new ScriptedProvider((request) => {
    if (request.messages.at(-1)?.content[0]?.type === 'tool_result') return { text: 'done' };
    const text = request.messages.at(-1)?.content[0]?.text ?? '';
    call++;
    return text.startsWith('ask')
      ? { toolCalls: [{ id: `q${call}`, name: 'communicate', input: { to: 'user', message: `question ${call}` } }] }
      : { toolCalls: [{ id: `w${call}`, name: 'write_note', input: { n: call } }] };
  }, 'bench'),
);
const session = await a.sessions.create();
const inB = await b.sessions.get(session.id);

/** A surface in A that never answers; resolves `withdrawn` with the time its offer was withdrawn. */
function waitingSurface() {
  let asked;
  let withdrawn;
  const askedPromise = new Promise((resolve) => (asked = resolve));
  const withdrawnPromise = new Promise((resolve) => (withdrawn = resolve));
  const hang = (signal) =>
    new Promise((_, reject) =>
      signal.addEventListener('abort', () => {
        withdrawn(performance.now());
        reject(signal.reason);
      }),
    );
  const detach = a.attachUser({
    medium: 'terminal',
    ask: (question, { signal }) => {
      asked(question.id);
      return hang(signal);
    },
    approve: (requests, { signal }) => {
      asked(requests[0].id);
      return hang(signal);
    },
  });
  return { asked: askedPromise, withdrawn: withdrawnPromise, detach };
}

async function answerRound(kind, index) {
  const surface = waitingSurface();
  const turn = a.send(session, `${kind === 'question' ? 'ask' : 'write'} ${index}`, { conversation: `${kind}${index}` });
  const id = await Promise.race([
    surface.asked,
    turn.then((result) => {
      throw new Error(`the turn ended before asking: ${JSON.stringify(result)}`);
    }),
  ]);
  const started = performance.now();
  const outcome =
    kind === 'question'
      ? await inB.answerQuestion(id, 'yes', { medium: 'web' })
      : await inB.answerApprovals([{ id, decision: 'approve' }], 'user', { medium: 'web' });
  if (outcome.status !== 'answered') throw new Error(outcome.error);
  const withdrawnAt = await surface.withdrawn;
  const result = await turn;
  if (result.status !== 'success') throw new Error(`round ${index}: ${JSON.stringify(result)}`);
  surface.detach();
  return withdrawnAt - started;
}

const questions = [];
const approvals = [];
for (let index = 0; index < ROUNDS; index++) {
  questions.push(await answerRound('question', index));
  approvals.push(await answerRound('approval', index));
}

const detach = a.attachUser({ medium: 'terminal', ask: async () => 'at once' });
const turns = [];
for (let index = 0; index < TIMED_TURNS; index++) {
  const started = performance.now();
  await a.send(session, `ask ${index}`, { conversation: `local${index}` });
  turns.push(performance.now() - started);
}
detach();
await a.close();
await b.close();
removeDir(root);

const localMs = median(turns.slice(Math.floor(TIMED_TURNS / 10)));
console.log(`answered from another Legion on the same files, ${ROUNDS} rounds each (record in B → A's surface withdrawn):`);
console.log(`  question: p50 ${ms(median(questions))}, p95 ${ms(p95(questions))}`);
console.log(`  approval: p50 ${ms(median(approvals))}, p95 ${ms(p95(approvals))}`);
console.log(
  `  a turn with one question answered at once by a local surface (2 model steps, recorded and claimed): ${ms(localMs)} (median)`,
);
printJson('cross-process-answer', {
  rounds: ROUNDS,
  questionP50Ms: round(median(questions)),
  questionP95Ms: round(p95(questions)),
  approvalP50Ms: round(median(approvals)),
  approvalP95Ms: round(p95(approvals)),
  localQuestionTurnMs: round(localMs),
});
