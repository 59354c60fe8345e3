// Wrote workspace-v1/ once, with Legion as it was at commit f2db9bf (approval
// records version 1: a `chain` of participant ids per request, and `link`
// records for the communicate calls waiting above it). Kept to show how the
// fixture was made; do not re-run it over the fixture: the point of the fixture
// is that it holds what that older Legion wrote, unchanged.
//
// Two sessions, each with a turn paused on the user's approval:
// - "nested": user → coordinator → developer, whose write_note waits.
// - "deep": user → lead → coordinator → developer; an earlier request in the
//   same conversations was approved at once (so older links exist too), then
//   the second round pauses.
// Usage: node write-workspace-v1.mjs <empty-directory>
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Legion, initWorkspace } from '@legion-collective/core';
import { ScriptedProvider, writeNoteTool } from '@legion-collective/core/testing';

const [root] = process.argv.slice(2);
if (!root) throw new Error('usage: write-workspace-v1.mjs <empty-directory>');

const agent = (id, delegation) => ({
  id,
  type: 'agent',
  name: id,
  systemPrompt: `You are ${id}.`,
  model: { provider: 'scripted', model: id },
  delegation,
});
initWorkspace(root, {
  participants: [
    { id: 'user', type: 'user', name: 'user', medium: 'test' },
    agent('lead', ['coordinator']),
    agent('coordinator', ['developer']),
    agent('developer', 'none'),
  ],
  entryAgent: 'coordinator',
});
const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
const usage = { inputTokens: 100, outputTokens: 10 };
const communicate = (id, to, message) => ({ toolCalls: [{ id, name: 'communicate', input: { to, message } }], usage });
const writeNote = (id, path, text) => ({ toolCalls: [{ id, name: 'write_note', input: { path, text } }], usage });
legion.providers.useFor(
  'lead',
  new ScriptedProvider(
    [
      communicate('l1', 'coordinator', 'get the first note written'),
      { text: 'First note done.', usage },
      communicate('l2', 'coordinator', 'now the second note'),
    ],
    'lead',
  ),
);
legion.providers.useFor(
  'coordinator',
  new ScriptedProvider(
    [
      { text: 'Hello! What shall we do?', usage },
      communicate('c1', 'developer', 'write the note'),
      communicate('c2', 'developer', 'write first.txt'),
      { text: 'first.txt is written.', usage },
      communicate('c3', 'developer', 'write second.txt'),
    ],
    'coordinator',
  ),
);
legion.providers.useFor(
  'developer',
  new ScriptedProvider(
    [
      writeNote('d1', 'note.txt', 'from the nested session'),
      writeNote('d2', 'first.txt', 'one'),
      { text: 'wrote first.txt', usage },
      writeNote('d3', 'second.txt', 'two'),
    ],
    'developer',
  ),
);
legion.tools.register(writeNoteTool(root));

const nested = await legion.sessions.create();
console.log('nested', nested.id, JSON.stringify(await nested.send({ from: 'user', to: 'coordinator', message: 'hello' })));
console.log('nested', nested.id, JSON.stringify(await nested.send({ from: 'user', to: 'coordinator', message: 'please write the note' })));

const deep = await legion.sessions.create();
const dispose = legion.approvals.setUserHandler(async ({ requests }) =>
  requests.map((request) => ({ id: request.id, decision: 'approve' })),
);
console.log('deep', deep.id, JSON.stringify(await deep.send({ from: 'user', to: 'lead', message: 'first note please' })));
dispose();
console.log('deep', deep.id, JSON.stringify(await deep.send({ from: 'user', to: 'lead', message: 'and the second' })));
await legion.close();
// Machine state and the sessions' .gitignore are not part of what is kept.
rmSync(join(root, '.legion', 'run'), { recursive: true, force: true });
rmSync(join(root, '.legion', '.gitignore'), { force: true });
for (const file of ['note.txt', 'first.txt', 'second.txt']) rmSync(join(root, file), { force: true });
