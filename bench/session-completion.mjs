// What completing `/resume <prefix>` costs in the REPL with many sessions: the
// completion lists every session's metadata (most recently active first) at each
// keystroke of the argument, so it must stay well under a keystroke's interval.
// Sessions are written in the engine's format behind its back, then listed once
// to settle the index; each figure is the median over fresh Legion instances.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Legion } from '@legion-collective/core';
import { agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { median, ms, printJson, removeDir, round, tempDir } from './lib.mjs';

const SIZES = [300, 3000];
const REPEATS = Number(process.env.BENCH_COMPLETION_REPEATS ?? 7);

function workspace(count) {
  const root = tempDir(`completion-${count}`);
  const legion = Legion.create({ root, participants: [userParticipant('user'), agentParticipant('worker')], entryAgent: 'worker', env: {} });
  legion.close();
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (let index = 0; index < count; index++) {
    const at = new Date(base + index * 60_000).toISOString();
    const id = `${at.slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${index.toString(16).padStart(6, '0')}`;
    mkdirSync(join(root, '.legion', 'sessions', id, 'conversations'), { recursive: true });
    writeFileSync(join(root, '.legion', 'sessions', id, 'session.json'), JSON.stringify({ version: 1, id, createdAt: at, lastActiveAt: at }));
  }
  return root;
}

/** What the REPL's completion does for one keystroke (slash-commands.ts, sessionItems). */
async function complete(legion, prefix) {
  return (await legion.sessions.list()).filter((meta) => meta.id.startsWith(prefix)).slice(0, 20);
}

console.log('session-completion — /resume completion with many sessions (fresh Legion instance each time; first and later keystrokes)');
const figures = {};
for (const size of SIZES) {
  const root = workspace(size);
  try {
    const first = [];
    const next = [];
    for (let repeat = 0; repeat <= REPEATS; repeat++) {
      const legion = Legion.open({ root, env: {} });
      let started = performance.now();
      const items = await complete(legion, '2026');
      if (repeat > 0) first.push(performance.now() - started);
      if (items.length !== 20) throw new Error(`expected 20 items, got ${items.length}`);
      started = performance.now();
      await complete(legion, '20260101-00');
      if (repeat > 0) next.push(performance.now() - started);
      legion.close();
    }
    figures[`first${size}`] = round(median(first));
    figures[`next${size}`] = round(median(next));
    console.log(`  ${String(size).padStart(5)} sessions: first keystroke median ${ms(median(first))}, next keystroke median ${ms(median(next))}`);
  } finally {
    removeDir(root);
  }
}
printJson('session-completion', figures);
