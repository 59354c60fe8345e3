// Child process for crash-safety.test.ts: sends <count> messages `<prefix>-<i>` from
// `user` to the mock `echo` in one session, after the parent writes a line to stdin
// (so that two of these start together). Prints READY, then one DONE line with the
// results as JSON, and exits.
// Usage: node send-many.mjs <workspace-root> <session-id> <prefix> <count>
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { Legion } from '@legion-collective/core';

const [root, sessionId, prefix, countArgument] = process.argv.slice(2);
const count = Number(countArgument);
if (!root || !sessionId || !prefix || !(count > 0)) throw new Error('usage: send-many.mjs <workspace-root> <session-id> <prefix> <count>');

const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
const session = await legion.sessions.get(sessionId);
const lines = createInterface({ input: process.stdin });
process.stdout.write('READY\n');
await new Promise((resolve) => lines.once('line', resolve));
lines.close();

const results = [];
for (let index = 0; index < count; index++) {
  const result = await legion.send(session, `${prefix}-${index}`, { to: 'echo' });
  results.push(result.status === 'success' ? result.reply : `error: ${result.error}`);
}
legion.close();
process.stdout.write(`DONE ${JSON.stringify(results)}\n`);
