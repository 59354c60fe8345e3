// What looking at the config files costs each message of an open surface (SessionDriver.send calls
// legion.reloadConfig() first): a stat of the global config, of .legion/config.json and of every
// participant file, and a listing of the participants directory. Measured with nothing changed
// (every message but those after an edit) and with one participant file edited (the files are read
// again, the roster and the config replaced).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Legion, initWorkspace } from '@legion-collective/core';
import { agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { median, ms, p95, printJson, removeDir, round, tempDir } from './lib.mjs';

const PARTICIPANTS = Number(process.env.BENCH_PARTICIPANTS ?? 20);
const LOOKS = Number(process.env.BENCH_LOOKS ?? 5000);
const EDITS = Number(process.env.BENCH_EDITS ?? 200);

const root = tempDir('config-reload');
try {
  initWorkspace(root, {
    participants: [userParticipant(), ...Array.from({ length: PARTICIPANTS - 1 }, (_, index) => agentParticipant(`agent${index}`))],
  });
  const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });

  for (let index = 0; index < 200; index++) legion.reloadConfig();
  const unchanged = [];
  for (let index = 0; index < LOOKS; index++) {
    const started = performance.now();
    const result = legion.reloadConfig();
    unchanged.push(performance.now() - started);
    if (result.status !== 'unchanged') throw new Error(`expected no change, got ${JSON.stringify(result)}`);
  }

  const file = join(root, '.legion/collective/participants/agent0.json');
  const original = JSON.parse(readFileSync(file, 'utf8'));
  const edited = [];
  for (let index = 0; index < EDITS; index++) {
    writeFileSync(file, JSON.stringify({ ...original, description: `edit ${index}` }, null, 2));
    const started = performance.now();
    const result = legion.reloadConfig();
    edited.push(performance.now() - started);
    if (result.status !== 'applied') throw new Error(`expected the edit to apply, got ${JSON.stringify(result)}`);
  }
  await legion.close();

  console.log(`config reload before each message, ${PARTICIPANTS} participant files`);
  console.log(`  nothing changed (${LOOKS} looks):  median ${ms(median(unchanged))}, p95 ${ms(p95(unchanged))}`);
  console.log(`  one file edited (${EDITS} edits):   median ${ms(median(edited))}, p95 ${ms(p95(edited))}`);
  printJson('config-reload', {
    participants: PARTICIPANTS,
    unchangedMedianMs: round(median(unchanged)),
    unchangedP95Ms: round(p95(unchanged)),
    editedMedianMs: round(median(edited)),
    editedP95Ms: round(p95(edited)),
  });
} finally {
  removeDir(root);
}
