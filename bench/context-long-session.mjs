// A long session with compaction on: 2,000 turns in one conversation of one agent
// whose window is small (4,096 tokens, the `small` profile), so that its context is
// summarized every ~20 turns. Time per turn and RSS must stay flat: the context is
// rebuilt from the last compaction point, never from the whole history.
// Figures: median time per turn around turn 100 and around turn 2,000, RSS at turn
// 100 and turn 2,000 (after a full GC), their ratios (target ≤ 1.2 both), compactions.
// Needs --expose-gc, which run-all passes; run alone: node --expose-gc bench/context-long-session.mjs
import { Legion } from '@legion-collective/core';
import { SUMMARY_SYSTEM_MARK } from '@legion-collective/core/internal';
import { ScriptedProvider, agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { median, ms, printJson, removeDir, tempDir } from './lib.mjs';

const TURNS = Number(process.env.BENCH_CONTEXT_TURNS ?? 2000);
const EARLY = 100;
/** Turns measured around each point. */
const WINDOW = 50;
const MB = 1024 * 1024;
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');

const SENTENCE = 'The parser walks the input once and notes positions for its error messages. ';
const root = tempDir('context');
const legion = Legion.create({
  root,
  participants: [
    userParticipant('user'),
    { ...agentParticipant('worker', { tools: ['todo_write'] }), context: { window: 4_096, outputReserve: 512 } },
  ],
  entryAgent: 'worker',
  env: {},
});
let summaries = 0;
/** What a provider reports a request filled, at about four bytes a token: the figure compaction decides by, as with a real provider. */
function requestTokens(request) {
  let bytes = request.system.length + JSON.stringify(request.tools).length;
  for (const message of request.messages) bytes += JSON.stringify(message.content).length;
  return Math.ceil(bytes / 4);
}
const model = new ScriptedProvider((request) => {
  if (request.system.includes(SUMMARY_SYSTEM_MARK)) {
    summaries++;
    return {
      text: `Summary ${summaries}: the user asked worker to port the parser; decisions so far kept; files: src/parser.ts.`,
      usage: { inputTokens: requestTokens(request), outputTokens: 40 },
    };
  }
  const last = request.messages.at(-1);
  if (request.messages.length === 1 && last.content.some((block) => block.type === 'text' && block.text.includes('plan'))) {
    return {
      toolCalls: [{ id: 't1', name: 'todo_write', input: { items: [{ id: '1', text: 'Port the parser', status: 'in_progress' }] } }],
    };
  }
  // Usage follows the request's size: a fixed figure would tell Legion the context never grows, and nothing would compact.
  return { text: `Answer: ${SENTENCE.repeat(3)}`, usage: { inputTokens: requestTokens(request), outputTokens: 50 } };
}, 'bench');
legion.providers.useFor('worker', model);
const session = await legion.sessions.create({ title: 'context' });
let compactions = 0;
legion.events.on('context:compacted', () => compactions++);

function rss() {
  globalThis.gc();
  return process.memoryUsage().rss / MB;
}

const durations = [];
let rssEarly;
const started = performance.now();
try {
  for (let turn = 1; turn <= TURNS; turn++) {
    const text = turn === 1 ? 'Please plan the port.' : `Turn ${turn}: ${SENTENCE.repeat(2)}`;
    const begin = performance.now();
    const result = await session.send({ from: 'user', to: 'worker', message: text });
    durations.push(performance.now() - begin);
    if (result.status !== 'success') throw new Error(`turn ${turn} failed: ${JSON.stringify(result)}`);
    // The scripted model keeps every request for tests to inspect; that is the harness's memory, not Legion's.
    model.requests.length = 0;
    if (turn === EARLY) rssEarly = rss();
    if (process.env.BENCH_CONTEXT_TRACE && turn % 500 === 0)
      console.log(`  turn ${turn}: RSS ${rss().toFixed(1)} MB, heap ${(process.memoryUsage().heapUsed / MB).toFixed(1)} MB`);
  }
  if (compactions === 0)
    throw new Error(
      `no compaction in ${TURNS} turns of a 4,096-token window: this bench measures a compacting session, and this one never compacted`,
    );
  const rssLate = rss();
  const seconds = (performance.now() - started) / 1000;
  const early = median(durations.slice(EARLY - WINDOW / 2, EARLY + WINDOW / 2));
  const late = median(durations.slice(-WINDOW));
  const timeRatio = late / early;
  const rssRatio = rssLate / rssEarly;
  const f = (value) => value.toFixed(2);
  console.log(
    `context-long-session — ${TURNS} turns in one conversation, window 4,096 tokens, ${compactions} compactions (${summaries} summarizer calls), ${seconds.toFixed(1)} s`,
  );
  console.log(
    `  time per turn (median of ${WINDOW}): around turn ${EARLY} ${ms(early)}, at turn ${TURNS} ${ms(late)} → ratio ${f(timeRatio)} (target ≤ 1.2)`,
  );
  console.log(
    `  RSS after GC: turn ${EARLY} ${rssEarly.toFixed(1)} MB, turn ${TURNS} ${rssLate.toFixed(1)} MB → ratio ${f(rssRatio)} (target ≤ 1.2)`,
  );
  printJson('context-long-session', {
    turns: TURNS,
    compactions,
    turnEarlyMs: Number(early.toFixed(3)),
    turnLateMs: Number(late.toFixed(3)),
    timeRatio: Number(f(timeRatio)),
    rssEarlyMB: Number(rssEarly.toFixed(1)),
    rssLateMB: Number(rssLate.toFixed(1)),
    rssRatio: Number(f(rssRatio)),
  });
} finally {
  await legion.close();
  removeDir(root);
}
