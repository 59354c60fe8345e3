// What completing `/resume <prefix>` costs in the REPL with many sessions. The REPL asks
// `legion.sessions.find(prefix)`, which lists every session's metadata once (the REPL does that
// shortly after it starts, off the keystroke path) and then answers each keystroke from memory,
// reading only the latest session's record; the figure to keep well under a keystroke's interval
// (target ~10 ms at 3,000 sessions) is the keystroke's. Listing at every keystroke, as the REPL
// did before, is measured beside it. Sessions are written in the engine's format behind its back,
// then listed once to settle the index; each figure is the median over fresh Legion instances.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Legion } from '@legion-collective/core';
import { agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { median, ms, printJson, removeDir, round, tempDir } from './lib.mjs';

const SIZES = [300, 3000];
const REPEATS = Number(process.env.BENCH_COMPLETION_REPEATS ?? 7);

function workspace(count) {
  const root = tempDir(`completion-${count}`);
  const legion = Legion.create({
    root,
    participants: [userParticipant('user'), agentParticipant('worker')],
    entryAgent: 'worker',
    env: {},
  });
  legion.close();
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (let index = 0; index < count; index++) {
    const at = new Date(base + index * 60_000).toISOString();
    const id = `${at.slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${index.toString(16).padStart(6, '0')}`;
    mkdirSync(join(root, '.legion', 'sessions', id, 'conversations'), { recursive: true });
    writeFileSync(
      join(root, '.legion', 'sessions', id, 'session.json'),
      JSON.stringify({ version: 1, id, createdAt: at, lastActiveAt: at }),
    );
  }
  return root;
}

/** What the REPL's completion does for one keystroke (slash-commands.ts, sessionItems). */
async function complete(legion, prefix) {
  return legion.sessions.find(prefix, { limit: 20 });
}

/** What it did before: list every session at each keystroke. */
async function completeByListing(legion, prefix) {
  return (await legion.sessions.list()).filter((meta) => meta.id.startsWith(prefix)).slice(0, 20);
}

console.log('session-completion — /resume completion with many sessions (fresh Legion instance each time)');
const figures = {};
for (const size of SIZES) {
  const root = workspace(size);
  try {
    const warm = [];
    const keystroke = [];
    const listing = [];
    for (let repeat = 0; repeat <= REPEATS; repeat++) {
      const legion = Legion.open({ root, env: {} });
      // The REPL's warm-up, once per REPL.
      let started = performance.now();
      await legion.sessions.find('', { limit: 0 });
      if (repeat > 0) warm.push(performance.now() - started);
      for (const prefix of ['2026', '20260101-00', '20260101-01']) {
        started = performance.now();
        const items = await complete(legion, prefix);
        if (repeat > 0) keystroke.push(performance.now() - started);
        if (items.length !== 20) throw new Error(`expected 20 items for ${prefix}, got ${items.length}`);
      }
      started = performance.now();
      await completeByListing(legion, '20260101-00');
      if (repeat > 0) listing.push(performance.now() - started);
      await legion.close();
    }
    figures[`warm${size}`] = round(median(warm));
    figures[`keystroke${size}`] = round(median(keystroke));
    figures[`listingKeystroke${size}`] = round(median(listing));
    console.log(
      `  ${String(size).padStart(5)} sessions: keystroke median ${ms(median(keystroke))} (max ${ms(Math.max(...keystroke))}); the one listing at REPL start ${ms(median(warm))}; listing at every keystroke (before) ${ms(median(listing))}`,
    );
  } finally {
    removeDir(root);
  }
}
printJson('session-completion', figures);
