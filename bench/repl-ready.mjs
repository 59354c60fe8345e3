// How soon the REPL is ready to type on a workspace with 1,000 sessions, against bare node, through a
// real pseudo-terminal (util-linux `script`): the prompt drawn (the input box), a key typed then
// shown in it, and the latest session's history on screen. Issue 29's bound: ready ≤ node + 150 ms.
// Then the longest a key waits to show while someone types on through the first 1.5 s: work the
// REPL does once it is up (reading every session for /resume's completion) must not stall typing.
//
// The sessions are copies of one real session (a `legion run` against a scripted participant), each
// with its own id and times, so `legion` resumes the newest of 1,000 as it would in a long-used
// workspace. The first start of each kind is a warm-up (it rebuilds the latest-session index the
// copies went around, and fills the compile cache): not counted.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, ms, printJson, removeDir, round, tempDir, verdict } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LEGION = join(ROOT, 'packages', 'cli', 'dist', 'legion.js');
const RUNS = Number(process.env.BENCH_REPL_READY_RUNS ?? 10);
const SESSIONS = Number(process.env.BENCH_REPL_READY_SESSIONS ?? 1000);
const BOUND_MS = 150;
/** The input box's border: drawn once the prompt is. */
const INPUT = '─'.repeat(40);
/** The banner of a resumed session, written once it is open. */
const OPENED = '/help for commands';
/** Typed as soon as the box shows; seen when the input line draws it. */
const TYPED = 'zq';
/** Typed one at a time after that: letters nothing else on the screen has. */
const KEYS = 'жщфыэюя';
const TYPING_MS = 1500;
const KEY_INTERVAL_MS = 20;

if (spawnSync('script', ['--version']).status !== 0) {
  console.log('repl-ready — skipped: util-linux `script` (a pty) is not installed');
  process.exit(0);
}

/** A command in a 120×40 pty; `output` grows as the program writes. */
function pty(command, env, cwd) {
  const child = spawn('script', ['-qfec', `stty cols 120 rows 40; ${command}`, '/dev/null'], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const session = { child, output: '' };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    session.output += chunk;
  });
  session.closed = new Promise((resolve) => child.on('close', resolve));
  return session;
}

async function until(predicate, limitMs = 30_000) {
  const started = performance.now();
  while (!predicate()) {
    if (performance.now() - started > limitMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** A workspace whose entry agent is scripted, with `count` sessions: one real, the rest copies of it. */
function workspace(count) {
  const dir = tempDir('repl-ready');
  spawnSync(process.execPath, [LEGION, 'init', dir], { encoding: 'utf8' });
  const participants = join(dir, '.legion/collective/participants');
  writeFileSync(
    join(participants, 'oracle.json'),
    JSON.stringify({ id: 'oracle', type: 'mock', name: 'Oracle', responses: [{ trigger: '*', response: 'All is well.' }] }),
  );
  writeFileSync(join(dir, '.legion/config.json'), JSON.stringify({ version: 1, entryAgent: 'oracle' }));
  const env = { NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg') };
  for (const message of ['How is the build?', 'And the tests?', 'Thanks.']) {
    const run = spawnSync(process.execPath, [LEGION, 'run', message], { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`legion run: ${run.stderr}`);
  }
  const sessions = join(dir, '.legion/sessions');
  const [real] = readdirSync(sessions);
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (let index = 1; index < count; index++) {
    const at = new Date(base + index * 60_000).toISOString();
    const id = `${at.slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${index.toString(16).padStart(6, '0')}`;
    cpSync(join(sessions, real), join(sessions, id), { recursive: true });
    const file = join(sessions, id, 'session.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), id, createdAt: at, lastActiveAt: at }));
  }
  return { dir, env };
}

const { dir, env } = workspace(SESSIONS);
console.log(`repl-ready — the REPL in a 120×40 pty on a workspace with ${SESSIONS} sessions (${RUNS} runs each, after a warm-up)`);

const bare = [];
const figures = { resume: { drawn: [], typed: [], opened: [], stall: [] }, fresh: { drawn: [], typed: [], opened: [], stall: [] } };
for (let run = -1; run < RUNS; run++) {
  let started = performance.now();
  const node = pty(`${process.execPath} -e 0`, env, dir);
  await node.closed;
  if (run >= 0) bare.push(performance.now() - started);
  for (const [kind, args] of [
    ['resume', ''],
    ['fresh', ' --new'],
  ]) {
    started = performance.now();
    const repl = pty(`${process.execPath} ${LEGION}${args}`, env, dir);
    await until(() => repl.output.includes(INPUT));
    const drawn = performance.now() - started;
    const offset = repl.output.length;
    repl.child.stdin.write(TYPED);
    await until(() => repl.output.slice(offset).includes(TYPED));
    const typed = performance.now() - started;
    await until(() => repl.output.includes(OPENED));
    const opened = performance.now() - started;
    // Typing on, one key at a time: how long each takes to show.
    let stall = 0;
    for (let index = 0; performance.now() - started < TYPING_MS; index++) {
      const key = KEYS[index % KEYS.length];
      const before = repl.output.length;
      const sent = performance.now();
      repl.child.stdin.write(key);
      await until(() => repl.output.slice(before).includes(key));
      stall = Math.max(stall, performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, KEY_INTERVAL_MS));
    }
    if (run >= 0) {
      figures[kind].drawn.push(drawn);
      figures[kind].typed.push(typed);
      figures[kind].opened.push(opened);
      figures[kind].stall.push(stall);
    }
    // Ctrl-U empties the line, Ctrl-D on the empty line quits.
    repl.child.stdin.write('\x15\x04');
    await repl.closed;
  }
}

const nodeMedian = median(bare);
const over = (values) => median(values) - nodeMedian;
console.log(`  script + node -e 0 (reference)              median ${ms(nodeMedian)}`);
for (const [kind, label] of [
  ['resume', 'legion (resumes the latest)'],
  ['fresh', 'legion --new'],
]) {
  const f = figures[kind];
  console.log(`  ${label.padEnd(28)} prompt drawn  median ${ms(median(f.drawn))}   (node + ${ms(over(f.drawn))})`);
  console.log(
    `  ${''.padEnd(28)} key shown     median ${ms(median(f.typed))}   (node + ${ms(over(f.typed))}: ${verdict(over(f.typed), BOUND_MS)})`,
  );
  console.log(`  ${''.padEnd(28)} session open  median ${ms(median(f.opened))}   (node + ${ms(over(f.opened))})`);
  console.log(`  ${''.padEnd(28)} longest wait for a key typed in the first ${TYPING_MS / 1000} s  median ${ms(median(f.stall))}`);
}
removeDir(dir);
printJson('repl-ready', {
  sessions: SESSIONS,
  nodeBareMs: round(nodeMedian, 1),
  ...Object.fromEntries(
    Object.entries(figures).map(([kind, f]) => [
      kind,
      {
        drawnOverNodeMs: round(over(f.drawn), 1),
        typedOverNodeMs: round(over(f.typed), 1),
        openedOverNodeMs: round(over(f.opened), 1),
        longestKeyWaitMs: round(median(f.stall), 1),
      },
    ]),
  ),
  boundMs: BOUND_MS,
});
