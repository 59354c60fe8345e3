// `GET /api/sessions` on a workspace of 10,000 sessions: the time of a page (50 sessions), over HTTP.
//
// The sessions are real: one made through the engine (a message to an echo participant and its
// reply), copied 10,000 times under new ids and times, as a workspace kept for months would be.
// The server pages from core's session catalog (read once at start), and shows each session's
// counts and usage from core's session index (`sessions/<id>/index.json`, kept at each append and
// copied with the template here), reading no log: the figures are pages by cursor through the
// first 2,000 sessions (cold: never listed before by this process), and the first page again.
// Then message search (`/api/search`): a word found in no session (the index's word filters say
// so without a log read) and one found in every session. Target: a page in ≤ 50 ms (issue 30).
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { Legion } from '@legion-collective/core';
import { mockParticipant, userParticipant } from '@legion-collective/core/testing';
import { startServer } from '@legion-collective/server';
import { median, ms, p95, printJson, removeDir, round, tempDir, verdict } from './lib.mjs';

const COUNT = Number(process.env.BENCH_SESSIONS ?? 10_000);
const PAGE = 50;
const TARGET_MS = 50;

async function workspace() {
  const root = tempDir('sessions-page');
  const participants = [userParticipant('user'), mockParticipant('echo', [{ trigger: '*', response: 'pong' }])];
  const legion = Legion.create({ root, participants, entryAgent: 'echo', env: {} });
  const template = await legion.sessions.create({ title: 'template' });
  await legion.send(template, 'hello', { to: 'echo' });
  await legion.close();
  const sessionsDir = join(root, '.legion', 'sessions');
  const templateDir = join(sessionsDir, template.id);
  const meta = JSON.parse(readFileSync(join(templateDir, 'session.json'), 'utf8'));
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (let index = 1; index < COUNT; index++) {
    const at = new Date(base + index * 60_000).toISOString();
    const id = `${at.slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${index.toString(16).padStart(6, '0')}`;
    const dir = join(sessionsDir, id);
    cpSync(templateDir, dir, { recursive: true });
    writeFileSync(join(dir, 'session.json'), JSON.stringify({ ...meta, id, createdAt: at, lastActiveAt: at, title: `session ${index}` }));
  }
  return { root, participants };
}

function get(port, token, path) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const outgoing = request(
      { host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}` } },
      (incoming) => {
        let body = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk) => (body += chunk));
        incoming.on('end', () => {
          if (incoming.statusCode !== 200) return reject(new Error(`${path}: ${incoming.statusCode} ${body}`));
          resolve({ ms: performance.now() - started, json: JSON.parse(body) });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

console.log(`serve-sessions-page — GET /api/sessions?limit=${PAGE} with ${COUNT.toLocaleString('en')} sessions`);
const { root, participants } = await workspace();
const legion = Legion.open({ root, participants, env: {} });
const server = await startServer({ legion });
try {
  const { port, token } = server;
  // The catalog's one read of every session record, started by the server: waited for here, as a
  // browser's first request comes after the page loaded.
  const listStarted = performance.now();
  await legion.sessions.find('', { limit: 0 });
  const catalogMs = performance.now() - listStarted;
  const cold = [];
  let after;
  let listed = 0;
  const seen = new Set();
  for (let page = 0; page < 40; page++) {
    const { ms: took, json } = await get(port, token, `/api/sessions?limit=${PAGE}${after ? `&after=${after}` : ''}`);
    cold.push(took);
    for (const session of json.sessions) seen.add(session.id);
    listed += json.sessions.length;
    after = json.next;
    if (!after) break;
  }
  if (seen.size !== listed) throw new Error(`a session was listed twice: ${listed} listed, ${seen.size} distinct`);
  const warm = [];
  for (let repeat = 0; repeat < 20; repeat++) warm.push((await get(port, token, `/api/sessions?limit=${PAGE}`)).ms);
  const search = [];
  for (let repeat = 0; repeat < 10; repeat++)
    search.push((await get(port, token, `/api/sessions?limit=${PAGE}&q=session%20${repeat}99`)).ms);
  const searchHits = [];
  for (let repeat = 0; repeat < 5; repeat++) searchHits.push((await get(port, token, `/api/search?q=hello`)).ms);
  const searchMisses = [];
  for (let repeat = 0; repeat < 5; repeat++) {
    const { ms: took, json } = await get(port, token, `/api/search?q=zebra${repeat}`);
    if (json.hits.length !== 0) throw new Error(`a word found nowhere had ${json.hits.length} hits`);
    searchMisses.push(took);
  }
  console.log(`  catalog read at start (once, in the background): ${ms(catalogMs)}`);
  console.log(
    `  page of ${PAGE}, never counted before (${cold.length} pages by cursor): median ${ms(median(cold))}, p95 ${ms(p95(cold))} ${verdict(p95(cold), TARGET_MS)}`,
  );
  console.log(`  first page again (counted): median ${ms(median(warm))}, p95 ${ms(p95(warm))} ${verdict(p95(warm), TARGET_MS)}`);
  console.log(`  page of a title search (q=): median ${ms(median(search))}, p95 ${ms(p95(search))} ${verdict(p95(search), TARGET_MS)}`);
  console.log(
    `  GET /api/search?q=hello (in every session; the newest 100 hits): median ${ms(median(searchHits))}, p95 ${ms(p95(searchHits))}`,
  );
  console.log(`  GET /api/search?q=zebraN (in no session: no log read): median ${ms(median(searchMisses))}, p95 ${ms(p95(searchMisses))}`);
  printJson('serve-sessions-page', {
    messageSearchMedianMs: round(median(searchHits)),
    absentWordSearchMedianMs: round(median(searchMisses)),
    sessions: COUNT,
    catalogMs: round(catalogMs),
    coldMedianMs: round(median(cold)),
    coldP95Ms: round(p95(cold)),
    warmMedianMs: round(median(warm)),
    warmP95Ms: round(p95(warm)),
    searchMedianMs: round(median(search)),
    searchP95Ms: round(p95(search)),
  });
} finally {
  await server.close();
  await legion.close();
  removeDir(root);
}
