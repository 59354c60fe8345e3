import { randomUUID } from 'node:crypto';
import type {
  HeaderEntry,
  MessageEntry,
  AppendableEntry,
  ConversationAddress,
  Lease,
  SessionBackend,
  SessionMeta,
} from '../store/index.js';

/**
 * Writes a session holding one of everything a session stores, through the backend's
 * interface: two conversations (one with a note and a compaction point), a decided and
 * a pending approval, an answered and an open question, usage, agent state of two kinds
 * and a text and a binary artifact. What copy tests move between stores.
 */
export async function fillSession(
  backend: SessionBackend,
  options: { id?: string | undefined; title?: string | undefined; seed?: string | undefined } = {},
): Promise<SessionMeta> {
  const seed = options.seed ?? randomUUID().slice(0, 8);
  const created = await backend.sessions.create(options.title ? { title: options.title } : {});
  let meta = created;
  if (options.id !== undefined) {
    meta = { ...created, id: options.id, createdAt: '2026-01-02T03:04:05.006Z', lastActiveAt: '2026-01-02T04:05:06.007Z' };
    await backend.sessions.remove(created.id);
    await backend.sessions.restore(meta);
  }
  const sessionId = meta.id;
  const main = { sessionId, conversationId: 'user__dev' };
  const side = { sessionId, conversationId: 'dev__reviewer__audit' };
  await backend.conversations.ensureHeader(main, header(main.conversationId));
  await backend.conversations.ensureHeader(side, header(side.conversationId));
  // Written as turns write: under each conversation's lease, given back at the end.
  const leases = new Map<string, Lease>();
  const append = async (address: ConversationAddress, entry: AppendableEntry): Promise<void> => {
    let lease = leases.get(address.conversationId);
    if (!lease) {
      const taken = await backend.conversations.acquire(address, 'fillSession', { ttlMs: 3_600_000 });
      if (!taken.acquired) throw new Error(`fillSession: ${address.conversationId} is held by ${taken.holder?.owner ?? 'another holder'}`);
      leases.set(address.conversationId, (lease = taken.lease));
    }
    await backend.conversations.append(address, entry, lease);
  };
  const first = message(`hello ${seed}`, 'user');
  await append(main, first);
  await append(main, message(`hi ${seed} — ünïcödé 🚀`, 'assistant'));
  await append(main, {
    kind: 'note',
    level: 'error',
    code: 'interrupted',
    text: 'the turn was interrupted',
    at: '2026-01-02T03:05:00.000Z',
  });
  const kept = message('keep me', 'user');
  await append(main, kept);
  await append(main, {
    kind: 'compaction',
    at: '2026-01-02T03:06:00.000Z',
    summary: `summary of ${seed}`,
    throughMessageId: first.id,
    keptMessages: 1,
    compacted: { firstMessageId: first.id, lastMessageId: first.id, count: 1 },
    tokensBefore: 1200,
    tokensAfter: 300,
    summarizer: { provider: 'scripted', model: 'test' },
    reason: 'manual',
    carried: [{ messageId: kept.id, at: kept.at, text: 'keep me' }],
  });
  await append(main, message('after the compaction', 'assistant'));
  await append(side, message(`review ${seed}`, 'user'));
  for (const lease of leases.values()) await lease.release();
  for (const id of ['apr_decided', 'apr_pending']) {
    await backend.approvals.append(sessionId, {
      kind: 'request',
      version: 2,
      id,
      at: '2026-01-02T03:07:00.000Z',
      batchId: 'batch-1',
      requester: 'dev',
      approver: 'user',
      tool: 'file_write',
      input: { path: `${id}.txt`, content: seed },
      toolUseId: `toolu_${id}`,
      conversationId: 'user__dev',
      reason: 'writes need approval',
      frames: [{ participantId: 'user', conversationId: 'user__dev' }],
    });
  }
  await backend.approvals.claim(sessionId, [
    { kind: 'decision', version: 1, requestId: 'apr_decided', at: '2026-01-02T03:08:00.000Z', decision: 'approved', decidedBy: 'user' },
  ]);
  for (const id of ['q_answered', 'q_open']) {
    await backend.questions.append(sessionId, {
      kind: 'question',
      version: 1,
      id,
      at: '2026-01-02T03:09:00.000Z',
      conversationId: 'dev__user',
      user: 'user',
      from: 'dev',
      chain: ['user', 'dev'],
      text: `Which database, ${seed}?`,
    });
  }
  await backend.questions.claim(sessionId, [
    {
      kind: 'answer',
      version: 1,
      questionId: 'q_answered',
      at: '2026-01-02T03:10:00.000Z',
      text: 'PostgreSQL',
      answeredBy: 'user',
      medium: 'cli',
    },
  ]);
  await backend.conflicts.append(sessionId, {
    kind: 'conflict',
    version: 1,
    id: 'cc_000000000001',
    at: '2026-01-02T03:10:30.000Z',
    conversationId: 'dev__tester',
    participantId: 'tester',
    tool: 'file_write',
    path: `${seed}.txt`,
    holder: { participantId: 'dev', sessionId, conversationId: 'user__dev', doing: 'writing the seed', since: '2026-01-02T03:10:00.000Z' },
  });
  for (const inputTokens of [10, 20]) {
    await backend.usage.append(sessionId, {
      version: 1,
      at: '2026-01-02T03:11:00.000Z',
      participantId: 'dev',
      conversationId: 'user__dev',
      chain: ['user'],
      provider: 'scripted',
      model: 'test',
      usage: { inputTokens, outputTokens: 1 },
      costUsd: 0.25,
    });
  }
  await backend.agentState.put(
    { sessionId, kind: 'todos', agentId: 'dev' },
    { version: 1, agentId: 'dev', items: [{ id: 't1', text: `ship ${seed}`, done: false }] },
  );
  await backend.agentState.put({ sessionId, kind: 'scratchbook', agentId: 'reviewer' }, { notes: ['a', 'b'], nested: { z: 1, a: null } });
  await backend.artifacts.put(sessionId, 'report.md', `# Report ${seed}\n`);
  await backend.artifacts.put(sessionId, 'blob.bin', new Uint8Array([0, 255, 1, 254, 10, 13]));
  return meta;
}

function header(conversationId: string): HeaderEntry {
  const [initiator = 'a', responder = 'b', name] = conversationId.split('__');
  return {
    kind: 'header',
    version: 2,
    conversationId,
    initiator,
    responder,
    ...(name ? { name } : {}),
    createdAt: '2026-01-02T03:04:05.006Z',
  };
}

function message(text: string, role: 'user' | 'assistant'): MessageEntry {
  return { kind: 'message', id: randomUUID(), role, content: [{ type: 'text', text }], at: new Date().toISOString() };
}
