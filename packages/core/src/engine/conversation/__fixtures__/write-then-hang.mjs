// Child process for file-claims.test.ts: runs user → worker, whose turn writes shared.txt (claiming
// it) and then calls a tool that prints TOOL_STARTED and never returns, so the parent can SIGKILL it
// while the turn holds the claim.
// Usage: node write-then-hang.mjs <workspace-root> <session-id>
import { join } from 'node:path';
import { z } from 'zod';
import { Legion, defineTool } from '@legion-collective/core';
import { ScriptedProvider } from '@legion-collective/core/testing';

const [root, sessionId] = process.argv.slice(2);
if (!root || !sessionId) throw new Error('usage: write-then-hang.mjs <workspace-root> <session-id>');

const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
legion.providers.useFor(
  'worker',
  new ScriptedProvider(
    [
      { toolCalls: [{ id: 'write-1', name: 'file_write', input: { path: 'shared.txt', content: 'by worker\n' } }] },
      { toolCalls: [{ id: 'hang-1', name: 'hang', input: { job: 'forever' } }] },
    ],
    'worker',
  ),
);
legion.tools.register(
  defineTool({
    name: 'hang',
    effect: 'read',
    description: 'Starts a job that never finishes.',
    inputSchema: z.object({ job: z.string() }),
    execute: () => {
      process.stdout.write('TOOL_STARTED\n');
      // The interval keeps the event loop alive until the parent kills us.
      return new Promise(() => setInterval(() => {}, 60_000));
    },
  }),
);

const session = await legion.sessions.get(sessionId);
const result = await legion.send(session, 'Write shared.txt, then run the long job', { to: 'worker' });
process.stdout.write(`UNEXPECTED_END ${JSON.stringify(result)}\n`);
