// Append cost at message 10 vs message 10,000 of a conversation.
//
// Two views of the same code path:
//  A. Conversation.append() — what AgentRuntime calls for every model reply and
//     tool result — with the conversation's cross-process lock held (taken with
//     a FileLock on the engine's own lock path, as Conversation.send does).
//     Each append is one JSON.stringify + one write() on the O_APPEND descriptor.
//  B. A whole Session.send() to a mock participant whose reply is immediate:
//     lock, session.json touch (an fsync'd atomic rewrite), catching up with
//     other processes, the user's message and the reply appended (2 messages
//     per send), unlock.
// "Message 10" is the 10th message of each of 200 short conversations;
// "message 10,000" is messages 10,000… of one long conversation. The two are
// timed interleaved (near, far, near, far, …) so that a busy disk or CPU
// affects both alike; the figure is the median of 200 of each, and the ratio
// must be ≈ 1. The long conversation is filled with direct appends (untimed).
import { statSync } from 'node:fs';
import { Legion, initWorkspace } from '@legion-collective/core';
// FileLock is internal to core (not in its public API): benchmarks measure the build directly.
import { FileLock } from '../packages/core/dist/store/fs/file-lock.js';
import { mockParticipant, userParticipant } from '@legion-collective/core/testing';
import { median, ms, p95, printJson, removeDir, round, tempDir } from './lib.mjs';

const SAMPLES = 200;
const FAR = 10_000;
// A realistic mid-sized message (~600 bytes on disk).
const TEXT = 'The change adds a health check endpoint and a test for it; the reviewer asked for a timeout. '.repeat(5);

function openWorkspace(root) {
  initWorkspace(root, {
    participants: [userParticipant('user'), mockParticipant('echo', [{ trigger: '*', response: TEXT }])],
    entryAgent: 'echo',
  });
  return Legion.open({ root, globalConfigFile: `${root}/no-global-config.json` });
}

/**
 * A conversation that holds `count` messages: one real send (header + 2
 * messages, the normal way), then direct appends under its lock. Returns the
 * conversation, its lock (held if `keepLock`) and an `append` that writes the
 * next message.
 */
async function conversationWith(legion, session, name, count, keepLock) {
  await session.send({ from: 'user', to: 'echo', message: TEXT, conversation: name });
  const conversation = session.conversation({ initiator: 'user', responder: 'echo', name });
  const lock = new FileLock(legion.paths.conversationLock(session.id, conversation.id));
  if (!lock.tryAcquire('bench appends')) throw new Error(`could not take the lock of ${conversation.id}`);
  let messages = 2;
  const append = async () => {
    const role = messages % 2 === 0 ? 'user' : 'assistant';
    await conversation.append({ role, content: [{ type: 'text', text: TEXT }] }, role === 'user' ? 'user' : 'echo');
    messages++;
    return messages;
  };
  while (messages < count) await append();
  if (!keepLock) lock.release();
  return { conversation, lock, append, file: legion.paths.conversationFile(session.id, conversation.id), count: () => messages };
}

async function timedAsync(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** A. Conversation.append under the lock. */
async function directAppends() {
  const root = tempDir('append');
  try {
    const legion = openWorkspace(root);
    const session = await legion.sessions.create();
    // Warm the JIT on a throw-away conversation, so neither window pays for it.
    const scratch = await conversationWith(legion, session, 'warmup', 3000, false);
    const far = await conversationWith(legion, session, undefined, FAR - 1, true);
    const nears = [];
    for (let i = 0; i < SAMPLES; i++) nears.push(await conversationWith(legion, session, `n${i}`, 9, true));
    const near = [];
    const farTimes = [];
    let nearMessage = 0;
    for (let i = 0; i < SAMPLES; i++) {
      const timeNear = async () => near.push(await timedAsync(async () => (nearMessage = await nears[i].append())));
      const timeFar = async () => farTimes.push(await timedAsync(() => far.append()));
      if (i % 2 === 0) (await timeNear(), await timeFar());
      else (await timeFar(), await timeNear());
    }
    if (nearMessage !== 10) throw new Error(`near appends wrote message ${nearMessage}, expected 10`);
    const last = (await far.conversation.recent(1))[0];
    if (!last || far.count() !== FAR - 1 + SAMPLES) throw new Error('the long conversation does not hold the appended messages');
    const result = {
      near,
      far: farTimes,
      nearLabel: `message 10 of ${SAMPLES} conversations`,
      farLabel: `messages ${FAR.toLocaleString('en')}–${far.count().toLocaleString('en')} of one`,
      bytes: statSync(far.file).size,
    };
    for (const c of [far, ...nears]) c.lock.release();
    void scratch;
    legion.close();
    return result;
  } finally {
    removeDir(root);
  }
}

/** B. Session.send to a mock with an immediate reply (2 messages per send). */
async function sends() {
  const root = tempDir('send');
  try {
    const legion = openWorkspace(root);
    const session = await legion.sessions.create();
    const send = async (name) => {
      const started = performance.now();
      const result = await session.send({ from: 'user', to: 'echo', message: TEXT, conversation: name });
      const elapsed = performance.now() - started;
      if (result.status !== 'success') throw new Error(JSON.stringify(result));
      return elapsed;
    };
    // Warm-up in another conversation of the same session.
    for (let i = 0; i < 300; i++) await send('warmup');
    // The long one holds 9,998 messages, so its next send writes messages 9,999 and 10,000.
    const far = await conversationWith(legion, session, undefined, FAR - 2, false);
    // Each short one holds 8 messages, so its next send writes messages 9 and 10.
    for (let i = 0; i < SAMPLES; i++) await conversationWith(legion, session, `n${i}`, 8, false);
    const near = [];
    const farTimes = [];
    for (let i = 0; i < SAMPLES; i++) {
      if (i % 2 === 0) {
        near.push(await send(`n${i}`));
        farTimes.push(await send(undefined));
      } else {
        farTimes.push(await send(undefined));
        near.push(await send(`n${i}`));
      }
    }
    const lastNear = (await session.conversation({ initiator: 'user', responder: 'echo', name: `n${SAMPLES - 1}` }).recent(20)).length;
    if (lastNear !== 10) throw new Error(`a short conversation holds ${lastNear} messages, expected 10`);
    const result = {
      near,
      far: farTimes,
      nearLabel: `messages 9–10 of ${SAMPLES} conversations`,
      farLabel: `messages ${(FAR - 1).toLocaleString('en')}–${(FAR - 2 + 2 * SAMPLES).toLocaleString('en')} of one`,
      bytes: statSync(far.file).size,
    };
    legion.close();
    return result;
  } finally {
    removeDir(root);
  }
}

function report(label, run) {
  const near = median(run.near);
  const far = median(run.far);
  const ratio = far / near;
  console.log(`  ${label}`);
  console.log(`    at message 10      (${run.nearLabel}):`.padEnd(72) + `median ${ms(near)}   p95 ${ms(p95(run.near))}`);
  console.log(
    `    at message 10,000  (${run.farLabel}):`.padEnd(72) +
      `median ${ms(far)}   p95 ${ms(p95(run.far))}   (file ${(run.bytes / 1e6).toFixed(1)} MB)`,
  );
  console.log(
    `    ratio 10,000 / 10: ${ratio.toFixed(2)}  ${ratio <= 1.5 ? '(flat: does not grow with history)' : '(NOT flat: grows with history)'}`,
  );
  return { nearMedianMs: round(near), farMedianMs: round(far), ratio: round(ratio, 3), fileMB: round(run.bytes / 1e6, 1) };
}

console.log(
  `append-cost — cost of appending message 10 vs message 10,000 (${SAMPLES} of each, timed interleaved; ~${TEXT.length}-character messages)`,
);
const figures = {};
figures.append = report('A. Conversation.append() under the conversation lock (one message = one write())', await directAppends());
figures.send = report('B. Session.send() to an immediate mock participant (lock + session.json touch + 2 appends + unlock)', await sends());
printJson('append-cost', figures);
