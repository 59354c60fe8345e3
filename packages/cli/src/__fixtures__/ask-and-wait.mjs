// A program embedding Legion (no terminal, no server): its agent asks the user, and its only
// surface waits for nothing but its signal, so the answer can come only from another process.
// Prints `asked <question id>`, then the turn's reply once it ends. Workspace root: argv[2].
import { join } from 'node:path';
import { Legion } from '@legion-collective/core';
import { ScriptedProvider } from '@legion-collective/core/testing';

const root = process.argv[2];
const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
legion.providers.useFor(
  'coordinator',
  new ScriptedProvider((request) => {
    const last = request.messages.at(-1)?.content[0];
    return last?.type === 'tool_result'
      ? { text: `Using ${last.content}` }
      : { toolCalls: [{ id: 'ask', name: 'communicate', input: { to: 'user', message: 'Which port?' } }] };
  }, 'coordinator'),
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
process.stdout.write(`${result.status}: ${result.status === 'success' ? result.reply : JSON.stringify(result)}\n`);
await legion.close();
