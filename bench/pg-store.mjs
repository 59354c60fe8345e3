// PostgreSQL backend figures (packages/store-postgres), on a server this script starts with
// PostgreSQL's default durability (every commit flushed to the WAL), or BENCH_DATABASE_URL's:
//  1. per-step overhead of the agent loop with every message appended to PostgreSQL: the loop of
//     agent-loop-step.mjs (a zero-latency scripted model calling a trivial tool 20 times, then
//     answering; a fresh named conversation per turn), interleaved with the same loop on files,
//     BENCH_REPEATS times (default 5); each repeat's median is printed, then the median of them;
//     CPU is this process's, and the server's (its backends for the bench database, from /proc);
//     round trips are the statements sent during the turns, per step;
//  2. appends per second with 8 concurrent writers (8 backend instances, each with its own
//     connections: to 8 conversations, all to one conversation, and to 8 conversations again
//     with every writer following the session, so that each append wakes 8 listeners);
//  3. opening a session whose conversation holds 100 MB of history and showing its latest 20
//     messages, from a new backend instance (a new connection, the schema check included).
// BENCH_PARTS (default `step,appends,history`) picks the parts to run.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Legion, initWorkspace } from '@legion-collective/core';
import { ScriptedProvider, agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { PostgresSessionBackend } from '@legion-collective/store-postgres';
import pg from 'pg';
import { median, ms, p95, printJson, removeDir, round, tempDir, verdict } from './lib.mjs';
import { createBenchDatabase, startBenchPostgres } from './pg-server.mjs';
import { noopTool } from './noop-tool.mjs';

const TOOL_STEPS = 20;
const STEPS_PER_TURN = TOOL_STEPS + 1;
const TURNS = Number(process.env.BENCH_TURNS ?? 60);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'step,appends,history').split(','));
const WARMUP_TURNS = 10;
const APPENDS_PER_WRITER = Number(process.env.BENCH_APPENDS ?? 300);
const HISTORY_MB = Number(process.env.BENCH_HISTORY_MB ?? 100);
const TEXT = 'The change adds a health check endpoint and a test for it; the reviewer asked for a timeout. '.repeat(5);

async function loop(label, backend) {
  const root = tempDir(`pg-loop-${label}`);
  initWorkspace(root, {
    participants: [userParticipant('user'), agentParticipant('worker', { tools: ['noop'], delegation: 'none' })],
    entryAgent: 'worker',
  });
  const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json'), ...(backend ? { backend } : {}) });
  legion.tools.register(noopTool);
  legion.providers.useFor(
    'worker',
    new ScriptedProvider((request) => {
      const done = (request.messages.length - 1) / 2;
      return done < TOOL_STEPS ? { toolCalls: [{ id: `s${done}`, name: 'noop', input: { step: done } }] } : { text: 'done' };
    }, 'bench'),
  );
  const session = await legion.sessions.create({ title: 'bench' });
  let index = 0;
  const run = { perStep: [], cpu: 0 };
  run.turn = async () => {
    const started = performance.now();
    const result = await session.send({ from: 'user', to: 'worker', message: 'go', conversation: `t${index++}` });
    if (result.status !== 'success') throw new Error(JSON.stringify(result));
    if (index % 50 === 0) session.close();
    return (performance.now() - started) / STEPS_PER_TURN;
  };
  run.close = async () => {
    await legion.close();
    removeDir(root);
  };
  return run;
}

/** CPU time (ms) the server's backends for one database have used so far: Linux's /proc, clock ticks of 10 ms. */
async function serverCpuMs(client, database) {
  const { rows } = await client.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
  let total = 0;
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // A backend that ended meanwhile.
    }
  }
  return total;
}

// Statements sent to the server, each one round trip (a pool's query goes through a client's).
let statementsSent = 0;
const clientQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(...args) {
  statementsSent++;
  return clientQuery.apply(this, args);
};

function entry(role = 'user', text = TEXT) {
  return { kind: 'message', id: randomUUID(), role, content: [{ type: 'text', text }], at: new Date().toISOString() };
}

const server = await startBenchPostgres();
const figures = {};
try {
  console.log('pg-store — the PostgreSQL session backend (server: PostgreSQL defaults, fsync and synchronous_commit on, unix socket)');

  // 1. Per-step overhead.
  if (PARTS.has('step')) {
    const loopUrl = await createBenchDatabase(server.url, 'bench_loop');
    const runs = { files: await loop('files'), postgres: await loop('postgres', new PostgresSessionBackend({ url: loopUrl })) };
    const watcher = new pg.Client({ connectionString: server.url });
    await watcher.connect();
    for (const run of Object.values(runs)) for (let i = 0; i < WARMUP_TURNS; i++) await run.turn();
    const medians = { files: [], postgres: [] };
    let serverCpu = 0;
    let roundTrips = 0;
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      for (const run of Object.values(runs)) {
        run.perStep = [];
        run.cpu = 0;
      }
      for (let i = 0; i < TURNS; i++) {
        for (const [name, run] of Object.entries(runs)) {
          const serverBefore = name === 'postgres' ? await serverCpuMs(watcher, 'bench_loop') : 0;
          const before = process.cpuUsage();
          const sentBefore = statementsSent;
          run.perStep.push(await run.turn());
          const cpu = process.cpuUsage(before);
          if (name === 'postgres') roundTrips += (statementsSent - sentBefore) / STEPS_PER_TURN;
          run.cpu += (cpu.user + cpu.system) / 1000 / STEPS_PER_TURN;
          if (name === 'postgres') serverCpu += ((await serverCpuMs(watcher, 'bench_loop')) - serverBefore) / STEPS_PER_TURN;
        }
      }
      const line = Object.entries(runs).map(([name, run]) => {
        medians[name].push(median(run.perStep));
        return `${name} median ${ms(median(run.perStep))} (CPU ${ms(run.cpu / TURNS)})`;
      });
      // The machine may be shared: its load says how far the wall-clock figures are from a quiet machine's.
      console.log(
        `  repeat ${repeat + 1}/${REPEATS} (${TURNS} turns × ${STEPS_PER_TURN} steps each): ${line.join('   ')}   load ${loadavg()[0].toFixed(2)}`,
      );
    }
    await watcher.end();
    for (const [name, run] of Object.entries(runs)) {
      // p95 and CPU of the last repeat; the median is the median of the repeats' medians.
      figures[`step_${name}`] = {
        medianMs: round(median(medians[name])),
        repeatMediansMs: medians[name].map((value) => round(value)),
        p95Ms: round(p95(run.perStep)),
        cpuMsPerStep: round(run.cpu / TURNS),
      };
      const server =
        name === 'postgres'
          ? `   server CPU ${ms(serverCpu / (TURNS * REPEATS))}   ${round(roundTrips / (TURNS * REPEATS), 2)} round trips`
          : '';
      console.log(
        `  per step, ${name.padEnd(8)}: median ${ms(median(medians[name]))} (of ${REPEATS} repeats' medians: ${medians[name].map((value) => ms(value)).join(', ')})   p95 ${ms(p95(run.perStep))}   CPU ${ms(run.cpu / TURNS)}${server} (2 appends per step)`,
      );
      await run.close();
    }
    figures.step_postgres.serverCpuMsPerStep = round(serverCpu / (TURNS * REPEATS));
    figures.step_postgres.roundTripsPerStep = round(roundTrips / (TURNS * REPEATS), 2);
    console.log(`  target: ≤ 1 ms per step on PostgreSQL → ${verdict(figures.step_postgres.medianMs, 1)}`);
  }

  // 2. Appends per second with 8 writers.
  if (PARTS.has('appends')) {
    const appendUrl = await createBenchDatabase(server.url, 'bench_append');
    const writers = Array.from({ length: 8 }, () => new PostgresSessionBackend({ url: appendUrl, maxConnections: 2 }));
    const { id: sessionId } = await writers[0].sessions.create();
    await Promise.all(writers.map((writer) => writer.ready()));
    /** Leases taken for these figures, by writer and conversation, kept to the end: every append is made under one. */
    const held = new Map();
    const leaseOf = async (writer, address) => {
      const key = `${writers.indexOf(writer)}/${address.conversationId}`;
      if (!held.has(key)) {
        const taken = await writer.conversations.acquire(address, `bench writer ${key}`, { ttlMs: 3_600_000 });
        if (!taken.acquired) throw new Error(`could not take the lease of ${address.conversationId}`);
        held.set(key, taken.lease);
      }
      return held.get(key);
    };
    for (const [label, sameConversation, following] of [
      ['8 conversations', false, false],
      ['1 conversation', true, false],
      ['8 conversations, each writer following the session (LISTENing, as a Legion process does)', false, true],
    ]) {
      if (following) {
        // Every append then wakes every writer's listening connection, as it would 8 Legion processes'.
        const woken = [];
        for (const writer of writers) woken.push(new Promise((resolve) => writer.watch(sessionId, resolve)));
        await writers[0].conversations.append(
          { sessionId, conversationId: 'user__w0' },
          entry(),
          await leaseOf(writers[0], { sessionId, conversationId: 'user__w0' }),
        );
        await Promise.all(woken);
      }
      // Every append is fenced by its conversation's lease. On one conversation the 8 writers share the one lease
      // (the check is on its token, in the append's statement), so they still contend for the one log as before.
      const leases = await Promise.all(
        writers.map((writer, index) =>
          sameConversation && index > 0
            ? undefined
            : leaseOf(writer, { sessionId, conversationId: sameConversation ? 'user__shared' : `user__w${index}` }),
        ),
      );
      const started = performance.now();
      await Promise.all(
        writers.map(async (writer, index) => {
          const address = { sessionId, conversationId: sameConversation ? 'user__shared' : `user__w${index}` };
          const lease = leases[sameConversation ? 0 : index];
          for (let i = 0; i < APPENDS_PER_WRITER; i++) await writer.conversations.append(address, entry(), lease);
        }),
      );
      const perSecond = Math.round((8 * APPENDS_PER_WRITER) / ((performance.now() - started) / 1000));
      figures[
        following
          ? 'appendsPerSecondEightConversationsFollowing'
          : sameConversation
            ? 'appendsPerSecondOneConversation'
            : 'appendsPerSecondEightConversations'
      ] = perSecond;
      console.log(
        `  8 writers, ${label.padEnd(15)}: ${perSecond} appends/s (${8 * APPENDS_PER_WRITER} appends of ~600 bytes, each its own committed transaction)`,
      );
    }
    for (const lease of held.values()) await lease.release();
    held.clear();
    await Promise.all(writers.map((writer) => writer.close()));
  }

  // 3. Open a session with a 100 MB history and show its latest 20 messages.
  if (PARTS.has('history')) {
    const historyUrl = await createBenchDatabase(server.url, 'bench_history');
    const loader = new PostgresSessionBackend({ url: historyUrl });
    const history = await loader.sessions.create({ title: 'long' });
    await loader.conversations.ensureHeader(
      { sessionId: history.id, conversationId: 'user__dev' },
      { kind: 'header', version: 2, conversationId: 'user__dev', initiator: 'user', responder: 'dev', createdAt: history.createdAt },
    );
    await loader.close();
    const bodyBytes = 10_000;
    const count = Math.round((HISTORY_MB * 1_000_000) / bodyBytes);
    const client = new pg.Client({ connectionString: historyUrl });
    await client.connect();
    // Random text (md5s), so that TOAST compression cannot shrink the history below its size.
    const big = JSON.stringify(entry('user', ''));
    const loadStarted = performance.now();
    await client.query(
      `INSERT INTO legion.entries (session_id, log_id, seq, kind, body)
       SELECT $1, 'user__dev', n, 'message',
         jsonb_set(jsonb_set(jsonb_set($2::jsonb, '{id}', to_jsonb(n::text)), '{role}', to_jsonb(CASE WHEN n % 2 = 0 THEN 'assistant' ELSE 'user' END)),
           '{content,0,text}', to_jsonb((SELECT string_agg(md5(n::text || '/' || i::text || random()::text), '') FROM generate_series(1, $4::int) AS i)))
       FROM generate_series(1, $3::int) AS n`,
      [history.id, big, count, Math.round(bodyBytes / 32)],
    );
    await client.query("UPDATE legion.logs SET last_seq = $2 WHERE session_id = $1 AND log_id = 'user__dev'", [history.id, count]);
    await client.query('VACUUM ANALYZE legion.entries');
    const size = (await client.query("SELECT pg_total_relation_size('legion.entries') AS bytes")).rows[0].bytes;
    await client.end();
    console.log(
      `  history: ${count} messages of ${bodyBytes} bytes in one conversation (${Math.round(Number(size) / 1e6)} MB on disk, loaded in ${ms(performance.now() - loadStarted)})`,
    );
    const opens = [];
    const reads = [];
    for (let i = 0; i < 15; i++) {
      const started = performance.now();
      const reader = new PostgresSessionBackend({ url: historyUrl });
      const meta = await reader.sessions.get(history.id);
      const latest = await reader.conversations.recent({ sessionId: meta.id, conversationId: 'user__dev' }, 20);
      opens.push(performance.now() - started);
      if (latest.length !== 20 || latest[19].id !== String(count)) throw new Error('wrong latest messages');
      const again = performance.now();
      await reader.conversations.recent({ sessionId: meta.id, conversationId: 'user__dev' }, 20);
      reads.push(performance.now() - again);
      await reader.close();
    }
    figures.openLatest20 = {
      medianMs: round(median(opens)),
      p95Ms: round(p95(opens)),
      warmReadMedianMs: round(median(reads)),
      historyMessages: count,
    };
    console.log(
      `  open + latest 20 (new instance: connect, schema check, session, 20 messages): median ${ms(median(opens))}   p95 ${ms(p95(opens))}; latest 20 again on the open instance: median ${ms(median(reads))}`,
    );
    console.log(`  target: ≤ 50 ms → ${verdict(figures.openLatest20.medianMs, 50)}`);
  }
} finally {
  await server.stop();
}
printJson('pg-store', figures);
