// The REPL through a real pseudo-terminal (util-linux `script`): how soon it is
// ready to type compared with bare node, how many bytes one keystroke writes,
// and what streaming a ~2,000-token reply writes (it must never clear the screen).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
import { median, ms, printJson, removeDir, round, tempDir } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LEGION = join(ROOT, 'packages', 'cli', 'dist', 'legion.js');
const RUNS = Number(process.env.BENCH_REPL_RUNS ?? 8);
const READY = '/help for commands';
/** The input box's border. */
const INPUT = '─'.repeat(40);
/** Full-screen clears: erase display, erase scrollback. */
const CLEARS = ['\x1b[2J', '\x1b[3J'];

if (spawnSync('script', ['--version']).status !== 0) {
  console.log('repl-terminal — skipped: util-linux `script` (a pty) is not installed');
  process.exit(0);
}

/** A command in a 120×40 pty; `output` grows as the program writes, `write` types. */
function pty(command, env, cwd) {
  const child = spawn('script', ['-qfec', `stty cols 120 rows 40; ${command}`, '/dev/null'], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const session = { child, output: Buffer.alloc(0), lastOutputAt: performance.now() };
  child.stdout.on('data', (chunk) => {
    session.output = Buffer.concat([session.output, chunk]);
    session.lastOutputAt = performance.now();
  });
  session.closed = new Promise((resolve) => child.on('close', resolve));
  return session;
}

async function until(predicate, limitMs = 30_000) {
  const started = performance.now();
  while (!predicate()) {
    if (performance.now() - started > limitMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Waits until the program has written nothing for `quietMs`. */
async function settle(session, quietMs = 60) {
  await until(() => performance.now() - session.lastOutputAt > quietMs);
}

const mock = new LLMock({ port: 0, host: '127.0.0.1' });
await mock.start();
const dir = tempDir('repl');
spawnSync(process.execPath, [LEGION, 'init', dir], { encoding: 'utf8' });
const participant = join(dir, '.legion/collective/participants/coordinator.json');
writeFileSync(
  participant,
  JSON.stringify({
    ...JSON.parse(readFileSync(participant, 'utf8')),
    model: { provider: 'anthropic', model: 'claude-test', baseURL: mock.url },
  }),
);
const reply = Array.from({ length: 2000 }, (_, index) => (index % 12 === 11 ? 'word.\n' : 'word')).join(' ');
mock.on({ userMessage: 'Stream it' }, { content: reply }, { chunkSize: 4 });
const env = { NO_COLOR: '1', ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: mock.url, XDG_CONFIG_HOME: join(dir, '.xdg') };

console.log(`repl-terminal — the REPL in a 120×40 pty (${RUNS} runs of start-up)`);
const bare = [];
const ready = [];
const opened = [];
for (let run = -1; run < RUNS; run++) {
  let started = performance.now();
  const node = pty(`${process.execPath} -e 0`, env, dir);
  await node.closed;
  if (run >= 0) bare.push(performance.now() - started);
  started = performance.now();
  const repl = pty(`${process.execPath} ${LEGION} --new`, env, dir);
  // Ready to type: the input box is drawn (the session may still be opening; what is typed waits for it).
  await until(() => repl.output.toString().includes(INPUT));
  if (run >= 0) ready.push(performance.now() - started);
  await until(() => repl.output.toString().includes(READY));
  if (run >= 0) opened.push(performance.now() - started);
  repl.child.stdin.write('\x04');
  await repl.closed;
}
console.log(`  script + node -e 0 (reference)        median ${ms(median(bare))}`);
console.log(
  `  script + legion, ready to type         median ${ms(median(ready))}   (node + ${ms(median(ready) - median(bare))}; target node + 60 ms once bundled)`,
);
console.log(`  script + legion, session open          median ${ms(median(opened))}   (node + ${ms(median(opened) - median(bare))})`);

const repl = pty(`${process.execPath} ${LEGION} --new`, env, dir);
await until(() => repl.output.toString().includes(READY));
await settle(repl, 200);
const keystrokes = [];
for (const key of 'hello world, this is typing') {
  const before = repl.output.length;
  repl.child.stdin.write(key);
  await until(() => repl.output.length > before);
  await settle(repl, 40);
  keystrokes.push(repl.output.length - before);
}
console.log(
  `  bytes written per keystroke            median ${median(keystrokes)} B, max ${Math.max(...keystrokes)} B over ${keystrokes.length} keys (target < 200 B)`,
);
repl.child.stdin.write('\x15'); // Ctrl-U: clear the line
await settle(repl, 100);
repl.child.stdin.write('Stream it\r');
const streamStart = repl.output.length;
await until(() => /\(\d[^)]*tokens · \$[\d.]+\)/.test(repl.output.toString('utf8', streamStart)), 120_000);
await settle(repl, 300);
const streamed = repl.output.subarray(streamStart).toString('utf8');
const clears = CLEARS.reduce((count, sequence) => count + streamed.split(sequence).length - 1, 0);
const replyBytes = Buffer.byteLength(reply);
console.log(
  `  streaming a ${reply.split(' ').length}-word reply (${replyBytes} B)   wrote ${streamed.length} B (${round(Buffer.byteLength(streamed) / replyBytes, 2)}× the reply), full-screen clears: ${clears} (must be 0)`,
);
repl.child.stdin.write('\x04');
await repl.closed;
await mock.stop();
removeDir(dir);
printJson('repl-terminal', {
  nodeBareMs: round(median(bare), 1),
  readyMs: round(median(ready), 1),
  readyOverNodeMs: round(median(ready) - median(bare), 1),
  sessionOpenMs: round(median(opened), 1),
  keystrokeMedianBytes: median(keystrokes),
  keystrokeMaxBytes: Math.max(...keystrokes),
  streamBytes: Buffer.byteLength(streamed),
  replyBytes,
  fullClears: clears,
});
