// `sessions.latest()` on workspaces with 10, 1,000 and 10,000 sessions.
//
// `legion` resumes the latest session on every start, so finding it must not
// grow with the number of sessions kept. Each workspace is written once (real
// sessions created through the engine for the first 10, then session folders
// in the engine's format), and each figure is the median over fresh Legion
// instances (no warm cache in memory, the OS page cache is warm). The folders
// written behind Legion's back make the first call scan every session (and
// rewrite the latest-session index in .legion/run/): that figure is shown apart.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Legion } from '@legion-collective/core';
import { agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { median, ms, printJson, removeDir, round, tempDir } from './lib.mjs';

const SIZES = [10, 1000, 10000];
const REPEATS = Number(process.env.BENCH_LATEST_REPEATS ?? 7);
const TARGET_MS = 20;

async function workspace(count) {
  const root = tempDir(`latest-${count}`);
  const legion = Legion.create({
    root,
    participants: [userParticipant('user'), agentParticipant('worker')],
    entryAgent: 'worker',
    env: {},
  });
  const template = await legion.sessions.create({ title: 'template' });
  const sessionsDir = join(root, '.legion', 'sessions');
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (let index = 1; index < count; index++) {
    const at = new Date(base + index * 60_000).toISOString();
    const id = `${at.slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${index.toString(16).padStart(6, '0')}`;
    mkdirSync(join(sessionsDir, id, 'conversations'), { recursive: true });
    writeFileSync(join(sessionsDir, id, 'session.json'), JSON.stringify({ version: 1, id, createdAt: at, lastActiveAt: at }));
  }
  legion.close();
  return { root, templateId: template.id };
}

console.log('sessions-latest — finding the session to resume (fresh Legion instance each time)');
const figures = {};
for (const size of SIZES) {
  const { root } = await workspace(size);
  try {
    const times = [];
    let scan;
    for (let repeat = 0; repeat <= REPEATS; repeat++) {
      const legion = Legion.open({ root, env: {} });
      const started = performance.now();
      const latest = await legion.sessions.latest();
      if (repeat === 0) scan = performance.now() - started;
      else times.push(performance.now() - started);
      if (!latest) throw new Error('no latest session');
      legion.close();
    }
    const value = median(times);
    figures[`sessions${size}`] = round(value);
    figures[`scan${size}`] = round(scan);
    console.log(
      `  ${String(size).padStart(6)} sessions: latest() median ${ms(value)}${size === 10000 ? ` (target < ${TARGET_MS} ms)` : ''}; first call after folders were added behind its back (full scan) ${ms(scan)}`,
    );
  } finally {
    removeDir(root);
  }
}
printJson('sessions-latest', figures);
