// Races deciders on one pending approval, many times: each round pauses a real `legion run` on a
// file_write, then releases 4 `legion approve` and 4 `legion reject` processes at one instant and
// counts the winners. Before decisions were claimed atomically, 2 of 30 rounds recorded two
// decisions and ran the tool with `rejected` on record; every round must have exactly one winner,
// and the file must exist exactly when the winner approved. Prints BENCH_JSON for run-all.
// ROUNDS=100 node bench/approval-race.mjs for a longer run.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
import { printJson, removeDir, tempDir } from './lib.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 30);
const DECIDERS = 8;
const LEGION = fileURLToPath(new URL('../packages/cli/dist/legion.js', import.meta.url));
const START_GATE = fileURLToPath(new URL('../packages/cli/src/__fixtures__/start-gate.mjs', import.meta.url));

const mock = new LLMock({ port: 0, host: '127.0.0.1' });
await mock.start();

function legion(dir, args, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LEGION, ...args], {
      cwd: dir,
      env: {
        ...process.env,
        NO_COLOR: '1',
        XDG_CONFIG_HOME: join(dir, '.xdg'),
        ANTHROPIC_API_KEY: 'bench',
        ANTHROPIC_BASE_URL: mock.url,
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function waitFor(condition) {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

let exactlyOne = 0;
let several = 0;
let none = 0;
let fileDisagrees = 0;
const started = performance.now();
for (let round = 0; round < ROUNDS; round++) {
  const dir = tempDir('approval-race');
  try {
    if ((await legion(dir, ['init'])).status !== 0) throw new Error('legion init failed');
    const coordinator = join(dir, '.legion/collective/participants/coordinator.json');
    writeFileSync(
      coordinator,
      JSON.stringify({ ...JSON.parse(readFileSync(coordinator, 'utf8')), model: { provider: 'anthropic', model: 'claude-race' } }),
    );
    const userMessage = `Write the notes, round ${round}`;
    mock.on(
      { model: 'claude-race', userMessage, hasToolResult: false },
      { toolCalls: [{ id: `toolu_${round}`, name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'raced' }) }] },
    );
    mock.on({ model: 'claude-race', userMessage, hasToolResult: true }, { content: 'Settled.' });
    const paused = await legion(dir, ['run', '--output', 'json', userMessage]);
    if (paused.status !== 2) throw new Error(`the run did not pause (exit ${paused.status}): ${paused.stderr}`);
    const id = JSON.parse(paused.stdout).approvals[0].id;

    const gate = join(dir, 'release');
    const gateEnv = { NODE_OPTIONS: `--import=${START_GATE}`, LEGION_TEST_GATE: gate };
    const deciders = Array.from({ length: DECIDERS }, (_, index) =>
      legion(dir, index % 2 === 0 ? ['approve', id] : ['reject', id, '--reason', `decider ${index}`], gateEnv),
    );
    await waitFor(() => readdirSync(dir).filter((name) => name.endsWith('.ready')).length === DECIDERS);
    writeFileSync(gate, '');
    const runs = await Promise.all(deciders);
    const winners = runs.filter((run) => run.status === 0).length;
    if (winners === 1) exactlyOne++;
    else if (winners === 0) none++;
    else several++;
    const view = JSON.parse((await legion(dir, ['approvals', '--all', '--json'])).stdout).approvals[0];
    if (existsSync(join(dir, 'notes.txt')) !== (view.status === 'approved')) fileDisagrees++;
  } finally {
    removeDir(dir);
  }
}
const seconds = (performance.now() - started) / 1000;
await mock.stop();

console.log(`approval race: ${ROUNDS} rounds of ${DECIDERS} deciders released at once (${seconds.toFixed(1)} s)`);
console.log(`  exactly one winner: ${exactlyOne}   more than one: ${several} (must be 0)   none: ${none} (must be 0)`);
console.log(`  file present but not approved, or approved but absent: ${fileDisagrees} (must be 0)`);
printJson('approval-race', {
  rounds: ROUNDS,
  deciders: DECIDERS,
  exactlyOne,
  several,
  none,
  fileDisagrees,
  seconds: Number(seconds.toFixed(1)),
});
process.exitCode = several === 0 && none === 0 && fileDisagrees === 0 ? 0 : 1;
