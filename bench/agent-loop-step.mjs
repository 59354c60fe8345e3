// Framework overhead per agent-loop step, durable persistence included.
//
// One agent whose zero-latency scripted model calls a trivial tool 20 times and
// then answers, so a turn is 21 model calls ("steps") and 42 appended messages
// (the user's message, 20 × (assistant tool_use + user tool_result), the final
// answer). Every turn goes through the real path: Session.send → lock →
// append → AgentRuntime → ToolExecutor (zod validation, timeout race) → append
// → unlock, with every message appended to the JSONL file on disk.
//
// Each turn uses a fresh named conversation (`conversation: 't' + i`), so the
// model request does not grow from turn to turn and the figure is the per-step
// overhead, not the cost of an ever-longer history. (The cost of creating that
// conversation — header line, lock directory, session.json touch — is included
// in the turn and spread over its 21 steps.)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Legion, initWorkspace } from '@legion-collective/core';
import { ScriptedProvider, agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { median, ms, p95, printJson, removeDir, round, tempDir, verdict } from './lib.mjs';
import { noopTool } from './noop-tool.mjs';

const TOOL_STEPS = 20;
const STEPS_PER_TURN = TOOL_STEPS + 1; // model calls per turn, the final answer included
const WARMUP_TURNS = Number(process.env.BENCH_WARMUP_TURNS ?? 20);
const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const FSYNC_MESSAGE_TURNS = Number(process.env.BENCH_FSYNC_TURNS ?? 100);
const ROUNDS = 4;
/** Conversations (and their open file descriptors) are released every this many turns, untimed. */
const CLOSE_EVERY = 50;

/** The model: a tool call with a different input each step (so loop detection stays quiet), then text. */
function scriptedModel() {
  return new ScriptedProvider((request) => {
    // In a fresh conversation the request holds: user, then (assistant, tool_result) per step so far.
    const done = (request.messages.length - 1) / 2;
    if (done < TOOL_STEPS) return { toolCalls: [{ id: `s${done}`, name: 'noop', input: { step: done } }] };
    return { text: 'done' };
  }, 'bench');
}

/**
 * One workspace with the given storage.fsync (undefined = the default), ready to run turns.
 * `subscribed`: a UI listens to every event (onAny), so every event is built, numbered and delivered.
 */
async function setup(fsync, { subscribed = false } = {}) {
  const root = tempDir(`loop-${fsync ?? 'default'}`);
  initWorkspace(root, {
    participants: [userParticipant('user'), agentParticipant('worker', { tools: ['noop'], delegation: 'none' })],
    entryAgent: 'worker',
  });
  const configFile = join(root, '.legion', 'config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8'));
  if (fsync !== undefined) writeFileSync(configFile, JSON.stringify({ ...config, storage: { fsync } }, null, 2));
  const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
  legion.tools.register(noopTool);
  let heard = 0;
  if (subscribed) legion.events.onAny(() => heard++);
  const provider = scriptedModel();
  legion.providers.useFor('worker', provider);
  const session = await legion.sessions.create({ title: 'bench' });
  const run = {
    root,
    legion,
    session,
    provider,
    fsync: legion.config.storage.fsync,
    perStep: [],
    wall: 0,
    cpu: 0,
    turns: 0,
    turnIndex: 0,
    heard: () => heard,
  };
  run.turn = async () => {
    const name = `t${run.turnIndex++}`;
    const started = performance.now();
    const result = await session.send({ from: 'user', to: 'worker', message: 'go', conversation: name });
    const elapsed = performance.now() - started;
    if (result.status !== 'success' || result.reply !== 'done') throw new Error(`turn ${name} failed: ${JSON.stringify(result)}`);
    if (run.turnIndex % CLOSE_EVERY === 0) session.close();
    return elapsed;
  };
  return run;
}

/** Runs `turns` measured turns of one workspace, adding to its figures. */
async function batch(run, turns) {
  const callsBefore = run.provider.callCount;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < turns; i++) run.perStep.push((await run.turn()) / STEPS_PER_TURN);
  run.wall += performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  run.cpu += (cpu.user + cpu.system) / 1000;
  run.turns += turns;
  if (run.provider.callCount - callsBefore !== turns * STEPS_PER_TURN) throw new Error('unexpected number of model calls');
}

/** Checks the last turn's conversation on disk (one line per message), closes and deletes the workspace. */
function finish(run) {
  try {
    const conversations = join(run.root, '.legion', 'sessions', run.session.id, 'conversations');
    const lines = readFileSync(join(conversations, `user__worker__t${run.turnIndex - 1}.jsonl`), 'utf8')
      .trim()
      .split('\n');
    run.messageLines = lines.filter((line) => line.startsWith('{"kind":"message"')).length;
    if (run.messageLines !== 2 * TOOL_STEPS + 2) throw new Error(`expected ${2 * TOOL_STEPS + 2} message lines, found ${run.messageLines}`);
    run.cpuPerStep = run.cpu / (run.turns * STEPS_PER_TURN);
    run.legion.close();
  } finally {
    removeDir(run.root);
  }
}

function report(label, run) {
  const med = median(run.perStep);
  const high = p95(run.perStep);
  console.log(`  ${label}`);
  console.log(
    `    per step:  median ${ms(med)}   p95 ${ms(high)}   (${run.turns} turns × ${STEPS_PER_TURN} steps, ${run.messageLines} messages appended per turn)`,
  );
  console.log(
    `    per turn:  median ${ms(med * STEPS_PER_TURN)}   throughput ${Math.round((run.turns * STEPS_PER_TURN) / (run.wall / 1000))} steps/s   CPU (user+sys) ${ms(run.cpuPerStep)} per step`,
  );
  return { medianMs: round(med), p95Ms: round(high), cpuMsPerStep: round(run.cpuPerStep), turns: run.turns };
}

console.log('agent-loop-step — framework overhead per agent-loop step (zero-latency scripted model, trivial zod-validated tool)');
console.log(
  `  each turn: ${TOOL_STEPS} tool steps + 1 final answer = ${STEPS_PER_TURN} model calls; a fresh named conversation per turn; ${WARMUP_TURNS} warm-up turns per mode not counted;`,
);
console.log(`  the four modes run in ${ROUNDS} interleaved rounds, so that changes in the machine's load affect them alike`);
const modes = {
  turn: await setup(undefined),
  never: await setup('never'),
  message: await setup('message'),
  subscribed: await setup(undefined, { subscribed: true }),
};
if (modes.turn.fsync !== 'turn') throw new Error(`expected the default fsync to be "turn", got ${modes.turn.fsync}`);
try {
  for (const run of Object.values(modes)) for (let i = 0; i < WARMUP_TURNS; i++) await run.turn();
  for (let round = 0; round < ROUNDS; round++) {
    await batch(modes.turn, Math.ceil(TURNS / ROUNDS));
    await batch(modes.never, Math.ceil(TURNS / ROUNDS));
    await batch(modes.message, Math.ceil(FSYNC_MESSAGE_TURNS / ROUNDS));
    await batch(modes.subscribed, Math.ceil(TURNS / ROUNDS));
  }
  if (modes.subscribed.heard() === 0) throw new Error('the subscribed mode heard no events');
} finally {
  for (const run of Object.values(modes)) finish(run);
}
const figures = {};
figures.default_fsync_turn = report(
  'storage.fsync = "turn" (default: appended with write(), fsync once at the end of each turn)',
  modes.turn,
);
figures.fsync_never = report('storage.fsync = "never" (OS page cache only; survives a process crash, not power loss)', modes.never);
figures.fsync_message = report('storage.fsync = "message" (fsync after every appended message)', modes.message);
figures.subscribed = report('storage.fsync = "turn" with a UI subscribed to every event (events.onAny)', modes.subscribed);
console.log("  (wall time includes fsync, whose latency depends on the disk and its load; CPU per step is the framework's own work)");
console.log(
  `  target: < 1 ms per step (goal 0.3 ms) with the default → ${verdict(figures.default_fsync_turn.medianMs, 1)}${figures.default_fsync_turn.medianMs <= 0.3 ? ', goal met' : ''}`,
);
printJson('agent-loop-step', { stepsPerTurn: STEPS_PER_TURN, ...figures });
