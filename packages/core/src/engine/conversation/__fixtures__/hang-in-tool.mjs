// Child process for crash-safety.test.ts: runs user → worker, where the worker's
// tool prints TOOL_STARTED and never returns, so the parent can SIGKILL it mid-turn.
// Usage: node hang-in-tool.mjs <workspace-root> <session-id>
import { join } from 'node:path';
import { z } from 'zod';
import { Legion, defineTool } from '@legion-collective/core';
import { ScriptedProvider } from '@legion-collective/core/testing';

const [root, sessionId] = process.argv.slice(2);
if (!root || !sessionId) throw new Error('usage: hang-in-tool.mjs <workspace-root> <session-id>');

const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
legion.providers.useFor(
  'worker',
  new ScriptedProvider(
    [{ text: 'Starting the long job.', toolCalls: [{ id: 'hang-1', name: 'hang', input: { job: 'forever' } }] }],
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
      // The assistant's tool_use line is already appended when a tool runs.
      process.stdout.write('TOOL_STARTED\n');
      // The interval keeps the event loop alive until the parent kills us.
      return new Promise(() => setInterval(() => {}, 60_000));
    },
  }),
);

const session = await legion.sessions.get(sessionId);
const result = await legion.send(session, 'Run the long job', { to: 'worker' });
process.stdout.write(`UNEXPECTED_END ${JSON.stringify(result)}\n`);
