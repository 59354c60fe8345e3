// A Legion process on a PostgreSQL store, for the multi-process tests (multi-process.test.ts).
// Runs the built packages, as a user's process would. Prints READY once open; `send` then waits
// for a line on stdin (so that many start together).
//   send   <root> <url> <session> <prefix> <count> [conversation]  sends `<prefix>-<i>` to the mock `echo`; prints DONE [replies]
//   hang   <root> <url> <session>   user → worker; the worker's tool prints TOOL_STARTED and never returns
//   resume <root> <url> <session>   sends "Did the job finish?" to worker; prints DONE <result>
//   follow <root> <url> <session>   prints REMOTE <text> for each message another process appends
//   ask    <root> <url> <session>   sends "Write the notes" to the entry agent with the workspace's model; its
//                                   approvals are asked on a surface that prints ASKED <request id> and never answers
//   question <root> <url> <session> sends "Write the notes" to the entry agent, which asks the user; the surface
//                                   prints QUESTION <question id> and never answers
//   stale  <root> <url> <session> <lease ms>  sends "What is the plan?" to worker, whose model prints MODEL_CALLED and
//                                   answers "stale plan from A" only once a line comes on stdin; prints DONE <result>
//   claim  <root> <url> <session> <claim JSON>  takes the file claim, prints HELD, waits to be killed
//   takeover <root> <url> <session> <lease ms> sends "Still there?" to worker, whose model answers "plan from B"; prints DONE <result>
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { z } from 'zod';
import { Legion, defineTool, textOf } from '@legion-collective/core';
import { ScriptedProvider } from '@legion-collective/core/testing';
import { PostgresSessionBackend } from '@legion-collective/store-postgres';

const [mode, root, url, sessionId, ...rest] = process.argv.slice(2);
if (!mode || !root || !url || !sessionId) throw new Error('usage: pg-worker.mjs <mode> <root> <url> <session> …');
// A short lease where a test pauses a process past it (stale, takeover).
const leaseTtlMs = mode === 'stale' || mode === 'takeover' ? Number(rest[0]) : undefined;
const backend = new PostgresSessionBackend({ url, maxConnections: 3 });
const legion = Legion.open({
  root,
  globalConfigFile: join(root, 'no-global-config.json'),
  backend,
  leaseTtlMs,
});
const session = await legion.sessions.get(sessionId);

if (mode === 'send') {
  const [prefix, countArgument, conversation] = rest;
  const lines = createInterface({ input: process.stdin });
  process.stdout.write('READY\n');
  await new Promise((resolve) => lines.once('line', resolve));
  lines.close();
  const replies = [];
  for (let index = 0; index < Number(countArgument); index++) {
    const result = await legion.send(session, `${prefix}-${index}`, { to: 'echo', ...(conversation ? { conversation } : {}) });
    replies.push(result.status === 'success' ? result.reply : `error: ${result.error}`);
  }
  await legion.close();
  process.stdout.write(`DONE ${JSON.stringify(replies)}\n`);
} else if (mode === 'hang') {
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
        process.stdout.write('TOOL_STARTED\n');
        return new Promise(() => setInterval(() => {}, 60_000));
      },
    }),
  );
  process.stdout.write('READY\n');
  const result = await legion.send(session, 'Run the long job', { to: 'worker' });
  process.stdout.write(`UNEXPECTED_END ${JSON.stringify(result)}\n`);
} else if (mode === 'claim') {
  const taken = await backend.fileClaims.take(JSON.parse(rest[0]));
  if (!taken.taken) throw new Error(`the path is claimed by ${taken.holder.conversationId}`);
  process.stdout.write('HELD\n');
  setInterval(() => {}, 60_000);
} else if (mode === 'resume') {
  legion.providers.useFor('worker', new ScriptedProvider([{ text: 'Back after the crash.' }], 'worker'));
  process.stdout.write('READY\n');
  const result = await legion.send(session, 'Did the job finish?', { to: 'worker' });
  await legion.close();
  process.stdout.write(`DONE ${JSON.stringify(result)}\n`);
} else if (mode === 'ask') {
  legion.attachUser({
    medium: 'terminal',
    approve: (requests) => {
      for (const request of requests) process.stdout.write(`ASKED ${request.id}\n`);
      return new Promise(() => setInterval(() => {}, 60_000));
    },
  });
  const result = await legion.send(session, 'Write the notes');
  process.stdout.write(`UNEXPECTED_END ${JSON.stringify(result)}\n`);
} else if (mode === 'question') {
  legion.providers.useFor(
    'coordinator',
    new ScriptedProvider(
      [{ toolCalls: [{ id: 'toolu_ask', name: 'communicate', input: { to: 'user', message: 'Which notes?' } }] }],
      'coordinator',
    ),
  );
  legion.attachUser({
    medium: 'terminal',
    ask: (question) => {
      process.stdout.write(`QUESTION ${question.id}\n`);
      return new Promise(() => setInterval(() => {}, 60_000));
    },
  });
  const result = await legion.send(session, 'Write the notes');
  process.stdout.write(`UNEXPECTED_END ${JSON.stringify(result)}\n`);
} else if (mode === 'stale') {
  const lines = createInterface({ input: process.stdin });
  const released = new Promise((resolve) => lines.once('line', resolve));
  legion.providers.useFor(
    'worker',
    new ScriptedProvider(
      [
        async () => {
          process.stdout.write('MODEL_CALLED\n');
          // The model holds its answer: the test pauses this process meanwhile, past its lease.
          await released;
          lines.close();
          return { text: 'stale plan from A' };
        },
      ],
      'worker',
    ),
  );
  const result = await legion.send(session, 'What is the plan?', { to: 'worker' });
  await legion.close();
  process.stdout.write(`DONE ${JSON.stringify(result)}\n`);
} else if (mode === 'takeover') {
  legion.providers.useFor('worker', new ScriptedProvider([{ text: 'plan from B' }], 'worker'));
  const result = await legion.send(session, 'Still there?', { to: 'worker' });
  await legion.close();
  process.stdout.write(`DONE ${JSON.stringify(result)}\n`);
} else if (mode === 'follow') {
  legion.events.on('message:sent', (event) => {
    if (event.remote) process.stdout.write(`REMOTE ${textOf(event.message)}\n`);
  });
  // A long poll: what arrives in time came by NOTIFY.
  await legion.follow(session, { pollMs: 600_000 });
  process.stdout.write('READY\n');
  setInterval(() => {}, 60_000);
} else {
  throw new Error(`unknown mode ${mode}`);
}
