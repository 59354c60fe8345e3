// Writes 3,000 files through file_write into a folder that another process keeps flipping
// between a link inside the workspace and a link outside it, and counts what landed outside.
// Before the fix (check, then open by path) about two thirds of the writes escaped; the figure
// must be 0. Prints BENCH_JSON for run-all.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '@legion-collective/core';
// The built-in tool factory is internal to core (not in its public API): benchmarks measure the build directly.
import { createBuiltinTools } from '../packages/core/dist/tools/builtin/index.js';

const WRITES = Number(process.env.WRITES ?? 3000);
const base = realpathSync(mkdtempSync(join(tmpdir(), 'legion-race-')));
const root = join(base, 'workspace');
const outside = join(base, 'outside');
const inside = join(root, 'real');
mkdirSync(join(root, '.legion'), { recursive: true });
mkdirSync(outside);
mkdirSync(inside);
symlinkSync(inside, join(root, 'dir'));
const flipper = spawn(process.execPath, [
  '-e',
  `const fs = require('fs'); const [dir, a, b] = process.argv.slice(1); let i = 0; process.stdout.write('ready\\n');
   for (;;) { const tmp = dir + '.tmp' + (i % 2); try { fs.unlinkSync(tmp) } catch {} fs.symlinkSync(i++ % 2 ? a : b, tmp); fs.renameSync(tmp, dir); }`,
  join(root, 'dir'),
  inside,
  outside,
]);
await new Promise((resolve) => flipper.stdout.once('data', resolve));
const builtin = createBuiltinTools({ families: ['files'] });
const write = builtin.tools.find((tool) => tool.name === 'file_write');
const context = {
  callerId: 'worker',
  chain: [],
  frames: [],
  toolUseId: 't',
  session: { id: 's' },
  events: new EventBus(),
  workspaceRoot: root,
  readable: () => true,
  conversation: { sessionId: 's', conversationId: 'user__worker', initiator: 'user', responder: 'worker' },
  signal: new AbortController().signal,
};
let written = 0;
let refused = 0;
const started = performance.now();
for (let index = 0; index < WRITES; index++) {
  const result = await write.execute({ path: `dir/file-${index}.txt`, content: `x${index}` }, context);
  if (result.status === 'success') written++;
  else refused++;
}
const seconds = (performance.now() - started) / 1000;
flipper.kill('SIGKILL');
const landedOutside = readdirSync(outside).length;
await builtin.dispose();
rmSync(base, { recursive: true, force: true });
console.log(
  `symlink race: ${WRITES} writes while a link flips in and out: ${written} written inside, ${refused} refused, ${landedOutside} landed outside (must be 0) in ${seconds.toFixed(1)} s`,
);
console.log(`BENCH_JSON ${JSON.stringify({ bench: 'symlink-race', writes: WRITES, written, refused, landedOutside })}`);
process.exitCode = landedOutside === 0 ? 0 : 1;
