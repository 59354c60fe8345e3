// A second process on a workspace, for the file backend's tests. One command per run:
//   hold-lease <root> <session> <conversation> <owner>   takes the lease for an hour, prints HELD, waits to be killed
//   hold-file-claim <root> <claim JSON>                  takes the file claim, prints HELD, waits to be killed
//   append <root> <session> <conversation> <count>        appends <count> messages under the lease, prints DONE
//   decide <root> <session> <request> <decidedBy>         tries to decide the request, prints WON or LOST <winner>
//   first-session <root>                                  prints the id latestOrCreate() gives
// decide and first-session print READY and wait for a line on stdin first, so that several
// children can be released at the same moment.
import { randomUUID } from 'node:crypto';
import { FileSessionBackend } from '@legion-collective/core';

const [command, root, ...rest] = process.argv.slice(2);
if (!command || !root) throw new Error('usage: backend-child.mjs <command> <root> …');
const backend = new FileSessionBackend({ root });

async function startSignal() {
  process.stdout.write('READY\n');
  for await (const _chunk of process.stdin) return;
}

if (command === 'hold-lease') {
  const [sessionId, conversationId, owner] = rest;
  const result = await backend.conversations.acquire({ sessionId, conversationId }, owner, { ttlMs: 3_600_000 });
  if (!result.acquired) throw new Error(`the lease is held by ${result.holder?.owner}`);
  process.stdout.write('HELD\n');
  setInterval(() => {}, 60_000);
} else if (command === 'hold-file-claim') {
  const result = await backend.fileClaims.take(JSON.parse(rest[0]));
  if (!result.taken) throw new Error(`the path is claimed by ${result.holder.conversationId}`);
  process.stdout.write('HELD\n');
  setInterval(() => {}, 60_000);
} else if (command === 'append') {
  const [sessionId, conversationId, count] = rest;
  const address = { sessionId, conversationId };
  const result = await backend.conversations.acquire(address, `child ${process.pid}`, { ttlMs: 60_000 });
  if (!result.acquired) throw new Error(`the lease is held by ${result.holder?.owner}`);
  for (let index = 0; index < Number(count); index++) {
    await backend.conversations.append(
      address,
      {
        kind: 'message',
        id: randomUUID(),
        role: 'user',
        content: [{ type: 'text', text: `from child ${index}` }],
        at: new Date().toISOString(),
      },
      result.lease,
    );
  }
  await result.lease.release();
  await backend.close();
  process.stdout.write('DONE\n');
} else if (command === 'decide') {
  const [sessionId, requestId, decidedBy] = rest;
  await startSignal();
  const outcome = await backend.approvals.claim(sessionId, [
    { kind: 'decision', version: 1, requestId, at: new Date().toISOString(), decision: 'approved', decidedBy },
  ]);
  process.stdout.write(outcome.ok ? 'WON\n' : `LOST ${outcome.taken[0]?.decidedBy}\n`);
  await backend.close();
} else if (command === 'first-session') {
  await startSignal();
  const { session } = await backend.sessions.latestOrCreate();
  process.stdout.write(`${session.id}\n`);
  await backend.close();
} else throw new Error(`unknown command ${command}`);
