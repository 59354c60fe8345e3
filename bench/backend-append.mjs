// What the async SessionBackend costs per append, and what a follower pays to see it.
//
// For each backend, interleaved sample by sample so a busy machine affects all alike:
//  - direct:   FileConversationLog.appendMessage, the synchronous call Conversation makes today
//              (the baseline the backend wraps; file backend only);
//  - append:   `await backend.conversations.append(address, entry, lease)`, under the conversation's lease (fenced);
//  - follow:   a second backend instance on the same store (another process, as far as the store
//              can tell) calling `readSince(cursor)` right after that append: one new message;
//  - idle:     the same follower polling again when nothing was appended.
// The file backend runs with fsync 'turn' (the default: appends are not fsynced one by one) and
// 'message' (every append fsynced). Messages are ~600 bytes, as in append-cost.mjs.
import { randomUUID } from 'node:crypto';
import { FileSessionBackend, MemorySessionBackend } from '@legion-collective/core';
import { MemorySessionStore } from '@legion-collective/core/internal';
import { FileConversationLog } from '../packages/core/dist/store/file/FileConversationLog.js';
import { WorkspacePaths } from '../packages/core/dist/store/fs/workspace-paths.js';
import { median, ms, p95, printJson, removeDir, round, tempDir } from './lib.mjs';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 2000);
const FSYNC_SAMPLES = Number(process.env.BENCH_FSYNC_SAMPLES ?? 300);
const WARMUP = 200;
const TEXT = 'The change adds a health check endpoint and a test for it; the reviewer asked for a timeout. '.repeat(5);

function entry(index) {
  return {
    kind: 'message',
    id: randomUUID(),
    role: index % 2 ? 'assistant' : 'user',
    content: [{ type: 'text', text: TEXT }],
    at: new Date().toISOString(),
  };
}

async function measure(label, writer, follower, samples, direct) {
  const { id: sessionId } = await writer.sessions.create();
  const address = { sessionId, conversationId: 'user__bench' };
  const lease = await writer.conversations.acquire(address, 'bench', { ttlMs: 600_000 });
  if (!lease.acquired) throw new Error('could not take the lease');
  await writer.conversations.ensureHeader(address, {
    kind: 'header',
    version: 1,
    conversationId: 'user__bench',
    initiator: 'user',
    responder: 'bench',
    createdAt: new Date().toISOString(),
  });
  let cursor = await follower.conversations.end(address);
  const times = { direct: [], append: [], follow: [], idle: [] };
  for (let index = 0; index < WARMUP + samples; index++) {
    const timed = index >= WARMUP;
    if (direct) {
      const started = performance.now();
      direct.appendMessage(entry(index));
      if (timed) times.direct.push(performance.now() - started);
    }
    let started = performance.now();
    await writer.conversations.append(address, entry(index), lease.lease);
    if (timed) times.append.push(performance.now() - started);
    started = performance.now();
    const read = await follower.conversations.readSince(address, cursor);
    if (timed) times.follow.push(performance.now() - started);
    // The direct baseline writes to its own file, so the follower sees exactly the one backend append.
    if (read.messages.length !== 1) throw new Error(`${label}: the follower saw ${read.messages.length} messages, expected 1`);
    cursor = read.cursor;
    started = performance.now();
    const idle = await follower.conversations.readSince(address, cursor);
    if (timed) times.idle.push(performance.now() - started);
    if (idle.messages.length !== 0) throw new Error(`${label}: an idle poll returned messages`);
  }
  await lease.lease.release();
  const figures = {};
  for (const [name, values] of Object.entries(times)) if (values.length) figures[name] = { median: median(values), p95: p95(values) };
  const parts = Object.entries(figures).map(([name, value]) => `${name} ${ms(value.median)} (p95 ${ms(value.p95)})`);
  const overhead = figures.direct ? `   async wrapper overhead: ${ms(figures.append.median - figures.direct.median)}` : '';
  console.log(`${label.padEnd(24)} ${parts.join('   ')}${overhead}`);
  return figures;
}

async function fileRun(label, fsync, samples) {
  const root = tempDir('backend-append');
  try {
    const writer = new FileSessionBackend({ root, fsync });
    const follower = new FileSessionBackend({ root, fsync });
    const paths = new WorkspacePaths(root);
    const direct = new FileConversationLog(
      paths.conversationFile('direct', 'user__bench'),
      paths.conversationLock('direct', 'user__bench'),
      { fsyncEachMessage: fsync === 'message' },
    );
    const figures = await measure(label, writer, follower, samples, {
      appendMessage: (full) => {
        const { kind: _kind, ...message } = full;
        direct.appendMessage(message);
      },
    });
    direct.close();
    await writer.close();
    await follower.close();
    return figures;
  } finally {
    removeDir(root);
  }
}

async function memoryRun(samples) {
  const store = new MemorySessionStore();
  return measure('memory', new MemorySessionBackend({ store }), new MemorySessionBackend({ store }), samples);
}

console.log(`SessionBackend append + readSince, median of ${SAMPLES} (${FSYNC_SAMPLES} with fsync per message), ~600-byte messages`);
const fileTurn = await fileRun('file (fsync: turn)', 'turn', SAMPLES);
const fileMessage = await fileRun('file (fsync: message)', 'message', FSYNC_SAMPLES);
const memory = await memoryRun(SAMPLES);

const pick = (figures) =>
  Object.fromEntries(Object.entries(figures).map(([name, value]) => [name, { medianMs: round(value.median), p95Ms: round(value.p95) }]));
printJson('backend-append', { fileTurn: pick(fileTurn), fileMessage: pick(fileMessage), memory: pick(memory) });
