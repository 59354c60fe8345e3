// Opening a session that holds 100 MB of history.
//
// Writes a workspace whose latest session has ~10 conversations of ~10 MB each
// (valid JSONL in the engine's format), plus two older small sessions, then in
// FRESH child processes measures what `legion` does on start: import the
// engine, Legion.open, sessions.latest(), session.recentMessages(20). For
// information it also measures loading one ~10 MB conversation's full model
// context (Conversation.history()) and, for comparison, a naive read +
// JSON.parse of all 100 MB.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const SCRIPT = fileURLToPath(import.meta.url);
const RUNS = Number(process.env.BENCH_OPEN_RUNS ?? 7);
const TOTAL_BYTES = 100 * 1024 * 1024;
const TARGET_MS = 300;
const CONVERSATIONS = [
  'user__coordinator',
  'coordinator__developer',
  'coordinator__reviewer',
  'coordinator__tester',
  'coordinator__writer',
  'developer__reviewer',
  'developer__tester',
  'developer__coordinator',
  'reviewer__developer',
  'coordinator__developer__refactor',
];
const PARTICIPANT_IDS = ['coordinator', 'developer', 'reviewer', 'tester', 'writer'];
const BASE_TIME = Date.parse('2025-03-01T08:00:00.000Z');

// ---------------------------------------------------------------- child side

async function child(mode, root, arg) {
  // performance.now() counts from the process's time origin, so t0 is the Node boot time before this code ran.
  const t0 = performance.now();
  if (mode === 'naive') {
    const dir = arg;
    let lines = 0;
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const line of text.split('\n')) if (line) (JSON.parse(line), lines++);
    }
    console.log(JSON.stringify({ naiveMs: performance.now() - t0, lines }));
    return;
  }
  const { Legion } = await import('@legion-collective/core');
  const t1 = performance.now();
  const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
  const session = await legion.sessions.latest();
  if (mode === 'open') {
    const recent = await session.recentMessages(20);
    const t2 = performance.now();
    const memory = process.memoryUsage();
    console.log(
      JSON.stringify({
        bootMs: t0,
        importMs: t1 - t0,
        openMs: t2 - t1,
        sinceProcessStartMs: t2,
        rssMB: memory.rss / 1e6,
        sessionId: session.id,
        ids: recent.map(({ message }) => message.id),
        conversations: [...new Set(recent.map(({ conversation }) => conversation.conversationId))].length,
      }),
    );
  } else if (mode === 'history') {
    const t2 = performance.now();
    const ref = (await session.listConversations()).find((candidate) => candidate.conversationId === arg);
    const history = await session.conversation(ref).history();
    const t3 = performance.now();
    console.log(
      JSON.stringify({
        openMs: t2 - t1,
        historyMs: t3 - t2,
        messages: history.length,
        lastId: history.at(-1)?.id,
        heapMB: process.memoryUsage().heapUsed / 1e6,
      }),
    );
  }
  legion.close();
}

// ---------------------------------------------------------------- parent side

async function main() {
  const { initWorkspace } = await import('@legion-collective/core');
  const { agentParticipant, userParticipant } = await import('@legion-collective/core/testing');
  const { median, min, ms, printJson, removeDir, round, tempDir, verdict } = await import('./lib.mjs');

  console.log('open-session — open a session holding 100 MB of history and show its latest 20 messages (fresh process each run)');
  const root = tempDir('open');
  try {
    initWorkspace(root, {
      participants: [userParticipant('user'), ...PARTICIPANT_IDS.map((id) => agentParticipant(id))],
      entryAgent: 'coordinator',
    });
    const writeStarted = performance.now();
    writeSession(root, '20250201-090000-0a0a0a', BASE_TIME - 30 * 86400e3, 40);
    writeSession(root, '20250215-090000-0b0b0b', BASE_TIME - 14 * 86400e3, 40);
    const big = writeBigSession(root, '20250301-080000-0c0c0c');
    console.log(
      `  wrote ${(big.bytes / 1048576).toFixed(1)} MiB in ${CONVERSATIONS.length} conversations, ${big.messages.toLocaleString('en')} messages ` +
        `(~${Math.round(big.bytes / big.messages)} bytes each), plus 2 older small sessions, in ${ms(performance.now() - writeStarted)}`,
    );

    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const result = runChild(['open', root]);
      result.wallMs = performance.now() - started;
      if (result.sessionId !== big.id) throw new Error(`latest() returned ${result.sessionId}, expected ${big.id}`);
      if (result.ids.length !== 20) throw new Error(`recentMessages(20) returned ${result.ids.length} messages`);
      if (JSON.stringify(result.ids) !== JSON.stringify(big.last20)) {
        throw new Error(
          `recentMessages(20) is not the newest 20, oldest first:\n got ${result.ids.join(',')}\n want ${big.last20.join(',')}`,
        );
      }
      runs.push(result);
    }
    const pick = (key) => runs.map((run) => run[key]);
    const openMedian = median(pick('openMs'));
    const importOpenMedian = median(runs.map((run) => run.importMs + run.openMs));
    console.log(
      `  ${RUNS} fresh processes; each returned 20 messages, newest last, spread over ${runs[0].conversations} conversations (checked against the ids written)`,
    );
    console.log(`    Legion.open + sessions.latest() + recentMessages(20):      median ${ms(openMedian)}   min ${ms(min(pick('openMs')))}`);
    console.log(
      `    + import of @legion-collective/core before it:             median ${ms(importOpenMedian)}   min ${ms(min(runs.map((run) => run.importMs + run.openMs)))}   (import alone ${ms(median(pick('importMs')))})`,
    );
    console.log(
      `    since process start (Node boot + import + open + recent): median ${ms(median(pick('sinceProcessStartMs')))}   min ${ms(min(pick('sinceProcessStartMs')))}   (whole child incl. exit ${ms(median(pick('wallMs')))}; rss ${Math.round(median(pick('rssMB')))} MB)`,
    );
    console.log(
      `    target: opening and showing the latest 20 < ${TARGET_MS} ms (import + open + recent) → ${verdict(importOpenMedian, TARGET_MS)}`,
    );

    const conversationsDir = join(root, '.legion', 'sessions', big.id, 'conversations');
    const largest = CONVERSATIONS[0];
    const historyRuns = [];
    for (let i = 0; i < 3; i++) historyRuns.push(runChild(['history', root, largest]));
    const history = historyRuns[0];
    const size = statSync(join(conversationsDir, `${largest}.jsonl`)).size;
    if (history.messages !== big.perConversation[largest] || history.lastId !== big.lastIdOf[largest])
      throw new Error(`history() returned ${history.messages} messages`);
    console.log(
      `  for information: Conversation.history() of ${largest} (${(size / 1048576).toFixed(1)} MiB, ${history.messages.toLocaleString('en')} messages, the full model context, no compaction point): ` +
        `median ${ms(median(historyRuns.map((run) => run.historyMs)))}, heap after ${Math.round(history.heapMB)} MB`,
    );
    const naive = runChild(['naive', root, conversationsDir]);
    console.log(
      `  for comparison: reading and JSON.parse-ing all ${(big.bytes / 1048576).toFixed(0)} MiB (${naive.lines.toLocaleString('en')} lines, what a load-everything open would cost at least): ${ms(naive.naiveMs)}`,
    );

    printJson('open-session', {
      totalMiB: round(big.bytes / 1048576, 1),
      messages: big.messages,
      openMedianMs: round(openMedian, 2),
      importPlusOpenMedianMs: round(importOpenMedian, 2),
      sinceProcessStartMedianMs: round(median(pick('sinceProcessStartMs')), 2),
      historyTenMBMedianMs: round(median(historyRuns.map((run) => run.historyMs)), 1),
      naiveParseAllMs: round(naive.naiveMs, 1),
    });
  } finally {
    removeDir(root);
  }
}

function runChild(args) {
  const result = spawnSync(process.execPath, [SCRIPT, '--child', ...args], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`child ${args[0]} failed (${result.status}):\n${result.stderr}`);
  const line = result.stdout.trim().split('\n').at(-1);
  return JSON.parse(line);
}

function sessionDir(root, id) {
  return join(root, '.legion', 'sessions', id);
}

function header(conversationId, createdAt) {
  const [initiator, responder, name] = conversationId.split('__');
  return JSON.stringify({ kind: 'header', version: 1, conversationId, initiator, responder, ...(name ? { name } : {}), createdAt }) + '\n';
}

function messageLine(id, role, text, at) {
  return JSON.stringify({ kind: 'message', id, role, content: [{ type: 'text', text }], at }) + '\n';
}

function writeSessionJson(root, id, createdAt, lastActiveAt) {
  mkdirSync(join(sessionDir(root, id), 'conversations'), { recursive: true });
  writeFileSync(join(sessionDir(root, id), 'session.json'), JSON.stringify({ version: 1, id, createdAt, lastActiveAt }, null, 2) + '\n');
}

/** An older, small session (so that latest() has to choose). */
function writeSession(root, id, start, count) {
  const iso = (ms) => new Date(ms).toISOString();
  writeSessionJson(root, id, iso(start), iso(start + count * 1000));
  let text = header('user__coordinator', iso(start));
  for (let i = 0; i < count; i++)
    text += messageLine(`${id}-m${i}`, i % 2 ? 'assistant' : 'user', `old message ${i}`, iso(start + i * 1000));
  writeFileSync(join(sessionDir(root, id), 'conversations', 'user__coordinator.jsonl'), text);
}

const PARAGRAPH =
  'Checked the request handler and the retry logic: the timeout is applied per attempt, not per call, so a slow upstream ' +
  'can hold a worker for up to three times the configured limit. Proposed fix: carry one deadline through the attempts, ' +
  'and return "upstream timed out" with the elapsed time. Tests: unit tests for the deadline arithmetic, one integration ' +
  'test with a stub server that answers after 2 s. Files touched: src/http/client.ts, src/http/retry.ts, test/retry.test.ts. ';
const BODY = PARAGRAPH.repeat(5); // ~2 KB per message

/** The big session: messages numbered g = 0, 1, 2, … round-robin over the conversations, one second apart. */
function writeBigSession(root, id) {
  const iso = (ms) => new Date(ms).toISOString();
  const dir = join(sessionDir(root, id), 'conversations');
  const fds = new Map();
  const buffers = new Map();
  const perConversation = {};
  const lastIdOf = {};
  let bytes = 0;
  for (const conversation of CONVERSATIONS) {
    mkdirSync(dir, { recursive: true });
    const fd = openSync(join(dir, `${conversation}.jsonl`), 'w');
    fds.set(conversation, fd);
    const line = header(conversation, iso(BASE_TIME));
    buffers.set(conversation, [line]);
    bytes += Buffer.byteLength(line);
    perConversation[conversation] = 0;
  }
  const flush = (conversation) => {
    const chunk = buffers.get(conversation).join('');
    writeSync(fds.get(conversation), chunk);
    buffers.set(conversation, []);
  };
  let g = 0;
  const ids = [];
  while (bytes < TOTAL_BYTES) {
    const conversation = CONVERSATIONS[g % CONVERSATIONS.length];
    const index = perConversation[conversation]++;
    const messageId = `m${g}`;
    const line = messageLine(
      messageId,
      index % 2 ? 'assistant' : 'user',
      `#${g} (${conversation} ${index}) ${BODY}`,
      iso(BASE_TIME + g * 1000),
    );
    bytes += Buffer.byteLength(line);
    buffers.get(conversation).push(line);
    if (buffers.get(conversation).length >= 256) flush(conversation);
    lastIdOf[conversation] = messageId;
    ids.push(messageId);
    g++;
  }
  for (const conversation of CONVERSATIONS) {
    flush(conversation);
    closeSync(fds.get(conversation));
  }
  writeSessionJson(root, id, iso(BASE_TIME), iso(BASE_TIME + g * 1000));
  return { id, bytes, messages: g, last20: ids.slice(-20), perConversation, lastIdOf };
}

// Dispatch last, so that every module-level constant above is initialised.
if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4], process.argv[5]);
} else {
  await main();
}
