// Child process for resume-answered.test.ts: coordinator asks the user a question, and the only
// surface waits for nothing but its signal, so the parent can SIGKILL this process mid-question
// and answer from another. Prints `asked <question id>`. Usage: node ask-and-wait.mjs <workspace-root>
import { join } from 'node:path';
import { Legion } from '@legion-collective/core';
import { ScriptedProvider } from '@legion-collective/core/testing';

const root = process.argv[2];
if (!root) throw new Error('usage: ask-and-wait.mjs <workspace-root>');
const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
legion.providers.useFor(
  'coordinator',
  new ScriptedProvider([{ toolCalls: [{ id: 'ask', name: 'communicate', input: { to: 'user', message: 'Which port?' } }] }], 'coordinator'),
);
legion.attachUser({
  medium: 'embedded',
  ask: (question, { signal }) =>
    new Promise((_, reject) => {
      process.stdout.write(`asked ${question.id}\n`);
      signal.addEventListener('abort', () => reject(signal.reason));
    }),
});
const session = await legion.sessions.resumeOrCreate();
const result = await legion.send(session, 'start the server');
process.stdout.write(`UNEXPECTED_END ${JSON.stringify(result)}\n`);
