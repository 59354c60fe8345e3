// Memory of `legion serve` over a long life: 1,000 turns driven through its HTTP API.
//
// The server runs in a child process (so the figures are its own, not this driver's): a real
// Legion over a temp workspace whose entry agent answers from a script (text and usage, no
// network), started with `startServer` as `legion serve` starts it. This process creates a
// session, keeps one event stream open (as a browser tab does), and sends 1,000 messages, one
// after another, each waiting for its `turn:end` on the stream; every 50th turn it also reads the
// session, its messages and its usage, as the app does. Figures: the server's RSS (from
// /proc/<pid>/status) after the first 100 turns and after 1,000, their difference, the live heap
// after a full GC at both points, and turns/s.
// No target is asserted: it prints figures. BENCH_SERVE_TURNS changes the count.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { printJson, removeDir, round, tempDir } from './lib.mjs';

const TURNS = Number(process.env.BENCH_SERVE_TURNS ?? 1000);
const EARLY = 100;
const MB = 1024 * 1024;

if (process.argv[2] === '--server') {
  // The child: a server over a scripted Legion, until stdin closes.
  const { createTestLegion, agentParticipant, userParticipant } = await import('@legion-collective/core/testing');
  const { startServer } = await import('@legion-collective/server');
  const root = process.argv[3];
  const test = createTestLegion({
    root,
    participants: [userParticipant(), agentParticipant('lead')],
    entryAgent: 'lead',
    scripts: {
      lead: Array.from({ length: TURNS + 10 }, (_, index) => ({
        text: `Reply number ${index}: ${'words '.repeat(40)}`,
        usage: { inputTokens: 1200, outputTokens: 80 },
      })),
    },
  });
  // The scripted model keeps every request it was sent (for tests' assertions): the harness's memory, not the server's.
  test.legion.events.on('turn:end', () => (test.providers.lead.requests.length = 0));
  const server = await startServer({
    legion: test.legion,
    ...(process.env.BENCH_SERVE_RING ? { journal: { maxEvents: Number(process.env.BENCH_SERVE_RING) } } : {}),
  });
  process.stdout.write(`${JSON.stringify({ port: server.port, token: server.token })}\n`);
  // A line on stdin asks for the live heap after a full GC (the driver's checkpoints).
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    input += chunk;
    while (input.includes('\n')) {
      input = input.slice(input.indexOf('\n') + 1);
      globalThis.gc?.();
      const memory = process.memoryUsage();
      process.stdout.write(
        `${JSON.stringify({ heapUsed: memory.heapUsed, rss: memory.rss, external: memory.external, arrayBuffers: memory.arrayBuffers })}\n`,
      );
    }
  });
  process.stdin.on('end', async () => {
    await server.close();
    await test.legion.close();
    process.exit(0);
  });
} else {
  await drive();
}

function rssOf(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]) * 1024;
}

async function drive() {
  const root = tempDir('legion-bench-serve-');
  const child = spawn(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--server', root], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = [];
  let lineWaiter;
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    out += chunk;
    let newline;
    while ((newline = out.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(out.slice(0, newline)));
      out = out.slice(newline + 1);
      lineWaiter?.();
    }
  });
  const nextLine = async () => {
    while (lines.length === 0) await new Promise((resolve) => (lineWaiter = resolve));
    return lines.shift();
  };
  /** The server's memory after a full GC. */
  const gcSample = async () => {
    child.stdin.write('gc\n');
    return nextLine();
  };
  const { port, token } = await nextLine();
  const headers = { authorization: `Bearer ${token}`, host: `127.0.0.1:${port}` };
  const call = (method, path, body) =>
    new Promise((resolve, reject) => {
      const outgoing = request(
        { host: '127.0.0.1', port, method, path, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) } },
        (incoming) => {
          let text = '';
          incoming.on('data', (chunk) => (text += chunk));
          incoming.on('end', () => resolve({ status: incoming.statusCode, json: text ? JSON.parse(text) : undefined }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body ? JSON.stringify(body) : undefined);
    });

  // One event stream, as a browser tab keeps open: it tells each turn's end.
  let ends = 0;
  let wake;
  const stream = request({ host: '127.0.0.1', port, path: '/api/events', headers }, (incoming) => {
    let buffer = '';
    incoming.setEncoding('utf8');
    incoming.on('data', (chunk) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        if (buffer.slice(0, end).includes('"type":"turn:end"')) ends++;
        buffer = buffer.slice(end + 2);
      }
      wake?.();
    });
  });
  stream.end();

  const { json: created } = await call('POST', '/api/sessions', {});
  const session = created.id;
  const rssAtStart = rssOf(child.pid);
  let rssEarly = 0;
  let heapEarly = 0;
  const started = performance.now();
  for (let turn = 1; turn <= TURNS; turn++) {
    const sent = await call('POST', `/api/sessions/${session}/messages`, { text: `Task ${turn}: summarise the state of things.` });
    if (sent.status !== 202) throw new Error(`turn ${turn}: ${sent.status} ${JSON.stringify(sent.json)}`);
    while (ends < turn) await new Promise((resolve) => (wake = resolve));
    if (turn % 50 === 0) {
      await call('GET', `/api/sessions/${session}`);
      await call('GET', `/api/sessions/${session}/conversations/user__lead/messages?limit=100`);
      await call('GET', `/api/sessions/${session}/usage`);
    }
    if (turn === EARLY) {
      heapEarly = (await gcSample()).heapUsed;
      rssEarly = rssOf(child.pid);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const heapEnd = (await gcSample()).heapUsed;
  const rssEnd = rssOf(child.pid);
  stream.destroy();
  child.stdin.end();
  await new Promise((resolve) => child.on('close', resolve));
  removeDir(root);

  const figures = {
    turns: TURNS,
    rssAtStartMB: round(rssAtStart / MB, 1),
    [`rssAfter${EARLY}MB`]: round(rssEarly / MB, 1),
    [`rssAfter${TURNS}MB`]: round(rssEnd / MB, 1),
    growthAfterEarlyMB: round((rssEnd - rssEarly) / MB, 1),
    [`liveHeapAfter${EARLY}MB`]: round(heapEarly / MB, 1),
    [`liveHeapAfter${TURNS}MB`]: round(heapEnd / MB, 1),
    turnsPerSecond: round(TURNS / seconds, 1),
  };
  console.log(
    `legion serve RSS: ${figures.rssAtStartMB} MB at start, ${figures[`rssAfter${EARLY}MB`]} MB after ${EARLY} turns, ${figures[`rssAfter${TURNS}MB`]} MB after ${TURNS} (+${figures.growthAfterEarlyMB} MB); live heap after a full GC ${figures[`liveHeapAfter${EARLY}MB`]} → ${figures[`liveHeapAfter${TURNS}MB`]} MB; ${figures.turnsPerSecond} turns/s through the API`,
  );
  printJson('serve-rss', figures);
}
