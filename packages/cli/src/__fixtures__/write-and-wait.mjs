// A program embedding Legion whose agent wants to write a file (which needs approval), and whose
// only surface waits for nothing but its signal: the decision can come only from another process.
// Prints `requested`, then the turn's outcome once it ends. Workspace root: argv[2].
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
      ? { text: `wrote it: ${last.content}` }
      : { toolCalls: [{ id: 'write', name: 'file_write', input: { path: 'approved.txt', content: 'written once' } }] };
  }, 'coordinator'),
);
legion.attachUser({
  medium: 'embedded',
  approve: (_requests, { signal }) =>
    new Promise((_, reject) => {
      process.stdout.write('requested\n');
      signal.addEventListener('abort', () => reject(signal.reason));
    }),
});
const session = await legion.sessions.resumeOrCreate();
const result = await legion.send(session, 'write the file');
process.stdout.write(`${result.status}: ${result.status === 'success' ? result.reply : JSON.stringify(result)}\n`);
await legion.close();
