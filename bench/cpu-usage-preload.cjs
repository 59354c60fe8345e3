// Preloaded (`node --require`) into every process bench/cli-startup.mjs times, the reference
// `node -e 0` included: on exit it reports the process's CPU time, all threads, on stderr. On a
// machine shared with other work, wall-clock figures swing with the load; CPU time much less.
// CommonJS, so that it starts nothing a bare `node -e 0` would not: an ES module preload (`--import`)
// makes every process start Node's ES module loader, some 4 ms that a `legion` whose entry is an ES
// module would then pay unseen.
'use strict';
const { writeSync } = require('node:fs');

process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  writeSync(2, `\nBENCH_CPU_MS ${(user + system) / 1000}\n`);
});
