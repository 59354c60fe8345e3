// Runs every bench script in sequence, each in its own node process (so their
// heaps and JIT state do not interfere), streams their output, and ends with a
// summary of the headline figures. `npm run bench` builds first, then runs this.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpus, loadavg } from 'node:os';

const BENCHES = [
  'agent-loop-step.mjs',
  'append-cost.mjs',
  'backend-append.mjs',
  'open-session.mjs',
  'cli-startup.mjs',
  'markdown-stream.mjs',
  'management-commands.mjs',
  'provider-overhead.mjs',
  'sdk-fetch.mjs',
  'memory-runs.mjs',
  'context-long-session.mjs',
  'context-flat-step.mjs',
  'sessions-latest.mjs',
  'follow-latency.mjs',
  'symlink-race.mjs',
  'approval-race.mjs',
  'surface-race.mjs',
  'cross-process-answer.mjs',
  'kill-children.mjs',
  'command-containment.mjs',
  'sandbox-shell-run.mjs',
  'worktree-shell-run.mjs',
  'approval-rules.mjs',
  'parallel-delegates.mjs',
  'repl-terminal.mjs',
  'repl-ready.mjs',
  'tool-schema-tokens.mjs',
  'prices.mjs',
  'evict-large-output.mjs',
  'config-reload.mjs',
  'kept-change.mjs',
];
/** Node flags a bench needs (memory-runs measures the live heap after a forced GC). */
const FLAGS = { 'memory-runs.mjs': ['--expose-gc'], 'context-long-session.mjs': ['--expose-gc'] };
const here = (name) => fileURLToPath(new URL(name, import.meta.url));

function run(name) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...(FLAGS[name] ?? []), here(name)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let json;
    let pending = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      pending += chunk;
      let newline;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (line.startsWith('BENCH_JSON ')) json = JSON.parse(line.slice('BENCH_JSON '.length));
        process.stdout.write(`${line}\n`);
      }
    });
    child.on('close', (code) => {
      if (pending) process.stdout.write(`${pending}\n`);
      resolve({ name, code, json, seconds: (performance.now() - started) / 1000 });
    });
  });
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
console.log(
  `Legion benchmarks — node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${load()}\n`,
);
const started = performance.now();
const results = [];
for (const name of BENCHES) {
  const result = await run(name);
  results.push(result);
  console.log(`  (${name} ${result.code === 0 ? 'finished' : `FAILED with exit code ${result.code}`} in ${result.seconds.toFixed(1)} s)\n`);
}

const f = Object.fromEntries(results.filter((r) => r.json).map((r) => [r.json.bench, r.json]));
const fmt = (value, unit = 'ms') => (value === undefined ? 'n/a' : `${value} ${unit}`);
console.log('Summary');
if (f['agent-loop-step']) {
  const a = f['agent-loop-step'];
  const line = (r) => `${fmt(r.medianMs)} / ${fmt(r.p95Ms)} / CPU ${fmt(r.cpuMsPerStep)}`;
  console.log(
    `  agent-loop step (median / p95 / CPU):  fsync "turn" (default) ${line(a.default_fsync_turn)}   "never" ${line(a.fsync_never)}   "message" ${line(a.fsync_message)}   UI subscribed ${line(a.subscribed)}   (target < 1 ms, goal 0.3 ms)`,
  );
}
if (f['append-cost']) {
  const a = f['append-cost'];
  console.log(
    `  append at message 10 vs 10,000:   Conversation.append ${fmt(a.append.nearMedianMs)} vs ${fmt(a.append.farMedianMs)} (ratio ${a.append.ratio})   Session.send ${fmt(a.send.nearMedianMs)} vs ${fmt(a.send.farMedianMs)} (ratio ${a.send.ratio})`,
  );
}
if (f['backend-append']) {
  const a = f['backend-append'];
  const t = a.fileTurn;
  console.log(
    `  SessionBackend append (median):   file ${fmt(t.append.medianMs)} (direct FileConversationLog ${fmt(t.direct.medianMs)})   memory ${fmt(a.memory.append.medianMs)}   follower readSince of 1 new: file ${fmt(t.follow.medianMs)}, memory ${fmt(a.memory.follow.medianMs)}`,
  );
}
if (f['open-session']) {
  const a = f['open-session'];
  console.log(
    `  open 100 MB session + latest 20:  ${fmt(a.openMedianMs)} (open+recent)   ${fmt(a.importPlusOpenMedianMs)} (with import)   ${fmt(a.sinceProcessStartMedianMs)} since process start   (target < 300 ms)   history() of 10 MB: ${fmt(a.historyTenMBMedianMs)}`,
  );
}
if (f['cli-startup']) {
  const a = f['cli-startup'];
  const over = (key) => `+${fmt(a[key].overNodeMs)}`;
  console.log(
    `  CLI cold start (median):          node -e 0 ${fmt(a.nodeBare.medianMs)}   over it: --version ${over('version')}   --help ${over('help')}   sessions ${over('sessions')} (target +60)   run ${over('runAnthropic')} Anthropic, ${over('runOpenAI')} OpenAI (target +120)   demo ${over('demo')}`,
  );
}
if (f['management-commands']) {
  const a = f['management-commands'];
  console.log(
    `  management commands (median):     node -e 0 ${fmt(a.nodeBare.medianMs)}   agents list ${fmt(a.agentsList.medianMs)}   config show ${fmt(a.configShow.medianMs)}   tools list ${fmt(a.toolsList.medianMs)}   doctor ${fmt(a.doctor.medianMs)}`,
  );
}
if (f['memory-runs']) {
  const a = f['memory-runs'];
  console.log(
    `  ${a.runs} runs without close():       RSS ${fmt(a.rssEarlyMB, 'MB')} at run 100 → ${fmt(a.rssLateMB, 'MB')} (growth ${fmt(a.rssGrowthMB, 'MB')}, target < 30)   live heap ${fmt(a.heapLateMB, 'MB')} (target < 20)   open fds ${a.fdsEarly} → ${a.fdsLate}`,
  );
}
if (f['context-long-session']) {
  const a = f['context-long-session'];
  console.log(
    `  ${a.turns}-turn session, compaction on: ${a.compactions} compactions   time per turn ${fmt(a.turnEarlyMs)} at turn 100 → ${fmt(a.turnLateMs)} (ratio ${a.timeRatio}, target ≤ 1.2)   RSS ${fmt(a.rssEarlyMB, 'MB')} → ${fmt(a.rssLateMB, 'MB')} (ratio ${a.rssRatio}, target ≤ 1.2)`,
  );
}
if (f['context-flat-step']) {
  const a = f['context-flat-step'];
  console.log(
    `  ${a.messages}-message conversation, never compacting: CPU per step ${fmt(a.stepEarlyMs)} at message 100 → ${fmt(a.stepLateMs)} (ratio ${a.ratio}, target ≤ 1.5)`,
  );
}
if (f['sessions-latest']) {
  const a = f['sessions-latest'];
  console.log(
    `  sessions.latest():                10 ${fmt(a.sessions10)}   1,000 ${fmt(a.sessions1000)}   10,000 ${fmt(a.sessions10000)} (target < 20 ms)`,
  );
}
if (f['follow-latency']) {
  const a = f['follow-latency'];
  console.log(
    `  follow another process:           ${a.messages} messages, append → event median ${fmt(a.medianMs)} / p95 ${fmt(a.p95Ms)} / worst ${fmt(a.worstMs)}`,
  );
}
if (f['symlink-race']) {
  const a = f['symlink-race'];
  console.log(
    `  symlink race (file_write):        ${a.writes} writes, ${a.landedOutside} landed outside the workspace (must be 0), ${a.refused} refused`,
  );
}
if (f['approval-race']) {
  const a = f['approval-race'];
  console.log(
    `  approval race:                    ${a.rounds} rounds of ${a.deciders} deciders, ${a.exactlyOne} with exactly one winner, ${a.several} with several, ${a.none} with none (must be 0 and 0)`,
  );
}
if (f['surface-race']) {
  const a = f['surface-race'];
  console.log(
    `  user surfaces race:               ${a.rounds} rounds of ${a.surfaces} surfaces answering at once, ${a.several} with several decisions, ${a.none} with none, ${a.wrongAborts} with a loser not told the winner (must be 0, 0, 0); a turn with one approval ${fmt(a.oneSurfaceMs)} (1 surface) vs ${fmt(a.manySurfacesMs)} (${a.surfaces})`,
  );
}
if (f['kill-children']) {
  const a = f['kill-children'];
  console.log(
    `  kill children:                    ${a.rounds} legion runs killed mid-command, ${a.survivors} left a process alive (must be 0); their commands died ${fmt(a.medianMs)} (median) / ${fmt(a.worstMs)} (worst) after them`,
  );
}
if (f['command-containment']) {
  const a = f['command-containment'];
  console.log(
    `  command containment:              ${a.kind} ${fmt(a.medianMs)} per command (median), ${a.fallbackKind} ${fmt(a.fallbackMedianMs)}: the namespace costs ${fmt(a.overheadMs)}`,
  );
}
if (f['sandbox-shell-run']) {
  const a = f['sandbox-shell-run'];
  console.log(
    a.sandboxWorks
      ? `  sandbox cost of a shell_run:      off ${fmt(a.off.medianMs)} / ${fmt(a.off.p95Ms)}, on ${fmt(a.on.medianMs)} / ${fmt(a.on.p95Ms)} (median / p95): adds ${fmt(a.addedMedianMs)} median`
      : `  sandbox cost of a shell_run:      n/a (${a.why})`,
  );
}
if (f['parallel-delegates']) {
  const a = f['parallel-delegates'];
  const line = (r) =>
    r ? `run ${fmt(r.runMedianMs)}, ${fmt(r.perStepMs)}/step, ${r.messagesPerSecond} messages/s` : 'n/a (no PostgreSQL)';
  console.log(
    `  parallel delegates (${a.delegates} × ${a.toolStepsPerDelegate} tool calls): files ${line(a.files)}   PostgreSQL ${line(a.postgres)}`,
  );
}
if (f['repl-terminal']) {
  const a = f['repl-terminal'];
  console.log(
    `  REPL in a pty:                    ready to type node + ${fmt(a.readyOverNodeMs)} (target 60 once bundled), session open ${fmt(a.sessionOpenMs)}; a keystroke writes ${fmt(a.keystrokeMedianBytes, 'B')} (max ${fmt(a.keystrokeMaxBytes, 'B')}, target < 200); a ${fmt(a.replyBytes, 'B')} streamed reply wrote ${fmt(a.streamBytes, 'B')} with ${a.fullClears} full-screen clears (must be 0)`,
  );
}
if (f['repl-ready']) {
  const a = f['repl-ready'];
  console.log(
    `  REPL ready, ${a.sessions} sessions:     resuming: prompt node + ${fmt(a.resume.drawnOverNodeMs)}, first key shown node + ${fmt(a.resume.typedOverNodeMs)} (bound ${a.boundMs}), longest key wait ${fmt(a.resume.longestKeyWaitMs)}   --new: prompt node + ${fmt(a.fresh.drawnOverNodeMs)}, first key node + ${fmt(a.fresh.typedOverNodeMs)}`,
  );
}
const failed = results.filter((r) => r.code !== 0);
console.log(
  `\n${failed.length === 0 ? 'All' : `${results.length - failed.length} of ${results.length}`} benches finished in ${((performance.now() - started) / 1000).toFixed(1)} s (load average now ${load()}; figures that involve fsync or process start vary with the machine's load).${failed.length ? ` Failed: ${failed.map((r) => r.name).join(', ')}` : ''}`,
);
process.exitCode = failed.length ? 1 : 0;
