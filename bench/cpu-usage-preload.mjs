// Preloaded (`node --import`) into every process bench/cli-startup.mjs times, the reference
// `node -e 0` included: on exit it reports the process's CPU time, all threads, on stderr. On a
// machine shared with other work, wall-clock figures swing with the load; CPU time much less.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  writeSync(2, `\nBENCH_CPU_MS ${(user + system) / 1000}\n`);
});
