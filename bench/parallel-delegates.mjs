// Parallel delegation, on the files and on PostgreSQL: an entry agent (`lead`) delegates to N
// agents at once (N `communicate` calls in one response), each delegate makes a few tool calls and
// answers, then the lead answers. Zero-latency scripted models, so what is measured is Legion:
// turns, leases, appends and the delegation tree, with every message appended to the backend.
// Each run uses fresh conversations (a run id in the thread names). The two backends' runs are
// interleaved, so a busy machine weighs on both alike.
//   BENCH_DELEGATES (8), BENCH_TOOL_STEPS (5 tool calls per delegate), BENCH_RUNS (30),
//   BENCH_DATABASE_URL: an existing server instead of a throw-away one; BENCH_BACKENDS=files: files only.
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { Legion, initWorkspace } from '@legion-collective/core';
import { ScriptedProvider, agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { median, ms, p95, printJson, removeDir, round, tempDir } from './lib.mjs';
import { noopTool } from './noop-tool.mjs';

const DELEGATES = Number(process.env.BENCH_DELEGATES ?? 8);
const TOOL_STEPS = Number(process.env.BENCH_TOOL_STEPS ?? 5);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP_RUNS = 5;
const workers = Array.from({ length: DELEGATES }, (_, index) => `w${index}`);
// Model steps of one run: the lead's two, and each delegate's tool steps plus its answer.
const STEPS_PER_RUN = 2 + DELEGATES * (TOOL_STEPS + 1);
// Messages appended per run: the lead's conversation (message, calls, results, answer) and, per
// delegate, its message, a call and a result per tool step, and its answer.
const MESSAGES_PER_RUN = 4 + DELEGATES * (2 + 2 * TOOL_STEPS);

/** The first text of the first message: the run id the lead was given. */
const runIdOf = (request) => request.messages[0].content.find((block) => block.type === 'text').text;

async function setUp(label, backend) {
  const root = tempDir(`parallel-${label}`);
  initWorkspace(root, {
    participants: [
      userParticipant('user'),
      agentParticipant('lead', { tools: ['communicate'], delegation: workers }),
      ...workers.map((id) => agentParticipant(id, { tools: ['noop'], delegation: 'none' })),
    ],
    entryAgent: 'lead',
  });
  const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json'), ...(backend ? { backend } : {}) });
  legion.tools.register(noopTool);
  legion.providers.useFor(
    'lead',
    new ScriptedProvider(
      (request) =>
        request.messages.length === 1
          ? {
              toolCalls: workers.map((to) => ({
                id: `c_${to}`,
                name: 'communicate',
                input: { to, message: 'check your part', conversation: runIdOf(request) },
              })),
            }
          : { text: 'all done' },
      'bench',
    ),
  );
  for (const id of workers) {
    legion.providers.useFor(
      id,
      new ScriptedProvider((request) => {
        const done = (request.messages.length - 1) / 2;
        return done < TOOL_STEPS ? { toolCalls: [{ id: `s${done}`, name: 'noop', input: { step: done } }] } : { text: `${id} done` };
      }, 'bench'),
    );
  }
  const session = await legion.sessions.create({ title: 'bench' });
  let index = 0;
  const run = { wall: [], cpu: [], messagesChecked: undefined };
  run.once = async () => {
    const runId = `r${index++}`;
    const before = process.cpuUsage();
    const started = performance.now();
    const result = await session.send({ from: 'user', to: 'lead', message: runId, conversation: runId });
    const wall = performance.now() - started;
    const cpu = process.cpuUsage(before);
    if (result.status !== 'success' || result.reply !== 'all done') throw new Error(`${label}: ${JSON.stringify(result)}`);
    if (index % 10 === 0) session.close();
    return { wall, cpu: (cpu.user + cpu.system) / 1000, runId };
  };
  /** Counts what one run appended, from the backend (a check that MESSAGES_PER_RUN is what happened). */
  run.count = async (runId) => {
    let total = 0;
    for (const ref of await session.listConversations()) {
      if (ref.name !== runId) continue;
      total += (await session.conversation(ref).recent(10_000)).length;
    }
    return total;
  };
  run.close = async () => {
    await legion.close();
    removeDir(root);
  };
  return run;
}

const onlyFiles = process.env.BENCH_BACKENDS === 'files';
let server;
const runs = { files: await setUp('files') };
if (!onlyFiles) {
  // Loaded only for PostgreSQL: `BENCH_BACKENDS=files` runs without the driver or a server.
  const [{ PostgresSessionBackend }, { createBenchDatabase, startBenchPostgres }] = await Promise.all([
    import('@legion-collective/store-postgres'),
    import('./pg-server.mjs'),
  ]);
  try {
    server = await startBenchPostgres();
  } catch (error) {
    // run-all.mjs runs this bench on machines without PostgreSQL too: the files' figures still count.
    console.log(`  (no PostgreSQL: ${error instanceof Error ? error.message : String(error)}; files only)`);
  }
  if (server)
    runs.postgres = await setUp('postgres', new PostgresSessionBackend({ url: await createBenchDatabase(server.url, 'bench_parallel') }));
}
const figures = {
  delegates: DELEGATES,
  toolStepsPerDelegate: TOOL_STEPS,
  runs: RUNS,
  stepsPerRun: STEPS_PER_RUN,
  messagesPerRun: MESSAGES_PER_RUN,
  loadBefore: loadavg()[0],
};
try {
  console.log(
    `parallel-delegates — lead → ${DELEGATES} delegates at once, ${TOOL_STEPS} tool calls each (${STEPS_PER_RUN} model steps, ${MESSAGES_PER_RUN} messages appended per run), ${RUNS} runs per backend, load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  for (const run of Object.values(runs)) for (let i = 0; i < WARMUP_RUNS; i++) await run.once();
  const lastIds = {};
  for (let i = 0; i < RUNS; i++) {
    for (const [name, run] of Object.entries(runs)) {
      const { wall, cpu, runId } = await run.once();
      run.wall.push(wall);
      run.cpu.push(cpu);
      lastIds[name] = runId;
    }
  }
  for (const [name, run] of Object.entries(runs)) {
    const appended = await run.count(lastIds[name]);
    if (appended !== MESSAGES_PER_RUN) throw new Error(`${name}: a run appended ${appended} messages, expected ${MESSAGES_PER_RUN}`);
    const wall = median(run.wall);
    const cpu = median(run.cpu);
    figures[name] = {
      runMedianMs: round(wall),
      runP95Ms: round(p95(run.wall)),
      cpuMedianMs: round(cpu),
      perStepMs: round(wall / STEPS_PER_RUN),
      cpuPerStepMs: round(cpu / STEPS_PER_RUN),
      messagesPerSecond: Math.round(MESSAGES_PER_RUN / (wall / 1000)),
    };
    const f = figures[name];
    console.log(
      `  ${name.padEnd(8)}: run median ${ms(wall)}   p95 ${ms(p95(run.wall))}   CPU ${ms(cpu)}   per step ${ms(f.perStepMs)} wall, ${ms(f.cpuPerStepMs)} CPU   ${f.messagesPerSecond} messages appended/s`,
    );
  }
  if (figures.postgres)
    console.log(`  PostgreSQL ÷ files, run wall time: ${(figures.postgres.runMedianMs / figures.files.runMedianMs).toFixed(2)}×`);
  figures.loadAfter = loadavg()[0];
  console.log(
    `  (per step = run wall time ÷ ${STEPS_PER_RUN} model steps; the delegates' steps overlap, so it is throughput, not latency. CPU is this process's only, not the PostgreSQL server's. Load average now ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')})`,
  );
} finally {
  for (const run of Object.values(runs)) await run.close();
  await server?.stop();
}
printJson('parallel-delegates', figures);
