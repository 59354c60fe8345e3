// Child process for the file backend's contract harness: takes a conversation's
// lease for an hour, prints HELD, and waits to be killed (SIGKILL: no release).
// Usage: node hold-lease.mjs <workspace-root> <session-id> <conversation-id> <owner>
import { FileSessionBackend } from '@legion-collective/core';

const [root, sessionId, conversationId, owner] = process.argv.slice(2);
if (!root || !sessionId || !conversationId || !owner) throw new Error('usage: hold-lease.mjs <root> <session-id> <conversation-id> <owner>');

const backend = new FileSessionBackend({ root });
const result = await backend.conversations.acquire({ sessionId, conversationId }, owner, { ttlMs: 3_600_000 });
if (!result.acquired) throw new Error(`the lease is held by ${result.holder?.owner}`);
process.stdout.write('HELD\n');
setInterval(() => {}, 60_000);
