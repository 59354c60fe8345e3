// How soon a UI process sees what another process appends (legion.follow).
//
// One workspace; this process follows its session. A second node process opens
// the same workspace and sends messages to a mock participant, one every few
// milliseconds (each turn appends the message and the reply). For every
// message the follower turns into a `message:sent` event, the latency is the
// time from the message's timestamp (taken just before it is appended, in the
// other process) to the event here. Same machine, so one clock.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Legion, initWorkspace } from '@legion-collective/core';
import { median, p95, printJson, removeDir, round, tempDir } from './lib.mjs';

const TURNS = Number(process.env.BENCH_FOLLOW_TURNS ?? 200);
const GAP_MS = 5;

const root = tempDir('follow');
initWorkspace(root, {
  participants: [
    { id: 'user', type: 'user', name: 'user', medium: 'bench' },
    { id: 'echo', type: 'mock', name: 'echo', responses: [{ trigger: '*', response: 'pong' }] },
  ],
});
const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
const session = await legion.sessions.create({ title: 'follow' });
const latencies = [];
let done;
const all = new Promise((resolve) => (done = resolve));
legion.events.on('message:sent', (event) => {
  if (!event.remote) return;
  latencies.push(Date.now() - Date.parse(event.message.at));
  if (latencies.length === TURNS * 2) done();
});
const stop = await legion.follow(session.id);

// The other process: a plain library user of the same workspace.
const writer = `
  import { Legion } from '@legion-collective/core';
  const legion = Legion.open({ root: process.env.ROOT, globalConfigFile: process.env.ROOT + '/no-global-config.json' });
  const session = await legion.sessions.get(process.env.SESSION);
  for (let i = 0; i < ${TURNS}; i++) {
    await session.send({ from: 'user', to: 'echo', message: 'ping ' + i });
    await new Promise((resolve) => setTimeout(resolve, ${GAP_MS}));
  }
  await legion.close();
`;
const started = performance.now();
const child = spawn(process.execPath, ['--input-type=module', '-e', writer], {
  cwd: fileURLToPath(new URL('..', import.meta.url)),
  env: { ...process.env, ROOT: root, SESSION: session.id },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const exited = new Promise((resolve) => child.on('close', resolve));
try {
  const code = await exited;
  if (code !== 0) throw new Error(`the writing process failed (exit code ${code})`);
  const timeout = setTimeout(() => done(), 5_000);
  await all;
  clearTimeout(timeout);
  if (latencies.length !== TURNS * 2) throw new Error(`expected ${TURNS * 2} followed messages, got ${latencies.length}`);
} finally {
  stop();
  await legion.close();
  removeDir(root);
}
const seconds = (performance.now() - started) / 1000;

console.log('follow-latency — another process appends, this one follows (fs.watch, poll fallback 500 ms)');
console.log(`  ${TURNS} turns in the other process, ${GAP_MS} ms apart (${TURNS * 2} messages), in ${seconds.toFixed(1)} s`);
// Message timestamps have millisecond resolution: 0 means within the same millisecond.
const whole = (value) => `${Math.round(value)} ms`;
console.log(
  `  append → message:sent here:  median ${whole(median(latencies))}   p95 ${whole(p95(latencies))}   worst ${whole(Math.max(...latencies))}   (millisecond timestamps)`,
);
printJson('follow-latency', {
  messages: latencies.length,
  medianMs: round(median(latencies)),
  p95Ms: round(p95(latencies)),
  worstMs: Math.max(...latencies),
});
