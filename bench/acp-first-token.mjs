// `legion acp` as an editor starts it: the time from spawning the process to the first streamed
// `agent_message_chunk` of the first prompt (spawn → initialize → session/new → session/prompt →
// first token), driven by the ACP SDK's client side over the child's stdio, in a fresh workspace
// made by `legion init` whose coordinator's model (through the official Anthropic SDK) is a
// zero-latency wire-protocol server on 127.0.0.1 in this process. Each round is a new process; the
// steps are timed too, to see where the time goes.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { client, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { median, min, ms, p95, printJson, removeDir, round, tempDir } from './lib.mjs';
import { startZeroLatencyModel } from './zero-latency-model.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LEGION = process.env.BENCH_LEGION ?? join(ROOT, 'packages', 'cli', 'dist', 'legion.js');
const RUNS = Number(process.env.BENCH_ACP_RUNS ?? 10);
const REPLY = 'pong';

const model = await startZeroLatencyModel(REPLY);
const workspace = tempDir('acp-first-token');
const env = {
  ...process.env,
  NO_COLOR: '1',
  XDG_CONFIG_HOME: join(workspace, '.xdg'),
  XDG_CACHE_HOME: join(workspace, '.cache'),
  ANTHROPIC_API_KEY: 'bench',
  ANTHROPIC_BASE_URL: model.url,
};
const init = spawnSync(process.execPath, [LEGION, 'init'], { cwd: workspace, env, encoding: 'utf8' });
if (init.status !== 0) throw new Error(`legion init failed: ${init.stderr}`);
const coordinator = join(workspace, '.legion', 'collective', 'participants', 'coordinator.json');
writeFileSync(
  coordinator,
  JSON.stringify({ ...JSON.parse(readFileSync(coordinator, 'utf8')), model: { provider: 'anthropic', model: 'claude-bench' } }, null, 2),
);

/** One round: a new `legion acp`, timed at each step until the first chunk of the reply. */
async function round1() {
  const started = performance.now();
  const child = spawn(process.execPath, [LEGION, 'acp'], { cwd: workspace, env, stdio: ['pipe', 'pipe', 'ignore'] });
  let firstToken;
  const gotToken = new Promise((resolve) => (firstToken = resolve));
  const app = client({ name: 'bench' }).onNotification('session/update', ({ params }) => {
    if (params.update.sessionUpdate === 'agent_message_chunk') firstToken(performance.now());
  });
  const connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
  const exited = new Promise((resolve) => child.on('close', resolve));
  await connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const initialized = performance.now();
  const { sessionId } = await connection.agent.request('session/new', { cwd: workspace, mcpServers: [] });
  const created = performance.now();
  const answered = connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ping' }] });
  const token = await gotToken;
  const { stopReason } = await answered;
  if (stopReason !== 'end_turn') throw new Error(`the prompt ended with ${stopReason}`);
  connection.close();
  child.stdin.end();
  await exited;
  return { total: token - started, initialize: initialized - started, newSession: created - initialized, prompt: token - created };
}

const rounds = [];
try {
  // One warm-up round fills the compile cache, as an editor's first start does.
  for (let index = 0; index <= RUNS; index++) {
    const measured = await round1();
    if (index > 0) rounds.push(measured);
  }
} finally {
  await model.close();
  removeDir(workspace);
}

const figures = (key) => rounds.map((measured) => measured[key]);
console.log(`acp-first-token — legion acp over stdio, ${RUNS} rounds after a warm-up, a new process each, zero-latency model`);
console.log(
  `  spawn → first agent_message_chunk   median ${ms(median(figures('total')))}   p95 ${ms(p95(figures('total')))}   min ${ms(min(figures('total')))}`,
);
console.log(`    spawn → initialize answered      median ${ms(median(figures('initialize')))}`);
console.log(`    session/new                       median ${ms(median(figures('newSession')))}`);
console.log(`    session/prompt → first chunk      median ${ms(median(figures('prompt')))}`);
printJson('acp-first-token', {
  firstTokenMedianMs: round(median(figures('total')), 1),
  firstTokenP95Ms: round(p95(figures('total')), 1),
  firstTokenMinMs: round(min(figures('total')), 1),
  initializeMedianMs: round(median(figures('initialize')), 1),
  newSessionMedianMs: round(median(figures('newSession')), 1),
  promptToTokenMedianMs: round(median(figures('prompt')), 1),
});
