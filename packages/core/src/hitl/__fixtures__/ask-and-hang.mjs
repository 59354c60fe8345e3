// Child process for approval-restart.test.ts: user → coordinator → developer,
// where developer's write_note needs the user's approval. The user's approval
// surface prints ASKED <id> and never answers, so the parent can SIGKILL the
// process while the approval is pending.
// Usage: node ask-and-hang.mjs <workspace-root> <session-id>
import { join } from 'node:path';
import { Legion } from '@legion-collective/core';
import { ScriptedProvider, writeNoteTool } from '@legion-collective/core/testing';

const [root, sessionId] = process.argv.slice(2);
if (!root || !sessionId) throw new Error('usage: ask-and-hang.mjs <workspace-root> <session-id>');

const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
legion.providers.useFor(
  'coordinator',
  new ScriptedProvider(
    [{ toolCalls: [{ id: 'c1', name: 'communicate', input: { to: 'developer', message: 'write the note' } }] }],
    'coordinator',
  ),
);
legion.providers.useFor(
  'developer',
  new ScriptedProvider(
    [{ toolCalls: [{ id: 'd1', name: 'write_note', input: { path: 'after-restart.txt', text: 'approved later' } }] }],
    'developer',
  ),
);
legion.tools.register(writeNoteTool(root));
legion.attachUser({
  medium: 'test',
  approve: (requests) => {
    process.stdout.write(`ASKED ${requests.map((request) => request.id).join(',')}\n`);
    return new Promise(() => setInterval(() => {}, 60_000));
  },
});
const session = await legion.sessions.get(sessionId);
const result = await legion.send(session, 'please write the note');
process.stdout.write(`UNEXPECTED_END ${JSON.stringify(result)}\n`);
