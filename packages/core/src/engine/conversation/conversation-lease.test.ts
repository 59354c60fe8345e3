import { setTimeout as wait } from 'node:timers/promises';
import { z } from 'zod';
import { FileSessionBackend } from '../../store/file/FileSessionBackend.js';
import { MemorySessionBackend } from '../../store/memory/MemorySessionBackend.js';
import { MemorySessionStore } from '../../store/memory/MemorySessionStore.js';
import type { AcquireResult, SessionBackend } from '../../store/session-backend.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/index.js';
import { defineTool } from '../../tools/tool.js';
import { Legion } from '../../Legion.js';
import { join } from 'node:path';

const TTL_MS = 60;
/**
 * The renewal test's ttl. Renewals run every third of it, so the intruder wins only if the turn's process
 * went two renewals without running: with 60 ms that is a 40 ms pause, common on a loaded 2-core machine.
 */
const RENEWED_TTL_MS = 1_000;

describe.each(['file', 'memory'] as const)('a conversation lease (%s backend)', (kind) => {
  let test: TestLegion | undefined;
  afterEach(() => test?.cleanup());

  it('is renewed while a turn runs longer than its ttl, so another holder cannot take it over', async () => {
    const store = new MemorySessionStore();
    let attempt: AcquireResult | undefined;
    let intruder: SessionBackend | undefined;
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none', tools: ['hold'] })],
      entryAgent: 'worker',
      scripts: { worker: [{ toolCalls: [{ id: 'h1', name: 'hold', input: {} }] }, { text: 'held' }] },
      backend: 'file',
    });
    const legion =
      kind === 'memory'
        ? Legion.open({
            root: test.root,
            globalConfigFile: join(test.root, 'no-global-config.json'),
            backend: new MemorySessionBackend({ store }),
            leaseTtlMs: RENEWED_TTL_MS,
          })
        : Legion.open({ root: test.root, globalConfigFile: join(test.root, 'no-global-config.json'), leaseTtlMs: RENEWED_TTL_MS });
    legion.providers.useFor('worker', test.providers['worker']!);
    intruder = kind === 'memory' ? new MemorySessionBackend({ store }) : new FileSessionBackend({ root: test.root });
    const session = await legion.sessions.create();
    legion.tools.register(
      defineTool({
        name: 'hold',
        effect: 'read',
        description: 'Runs for several lease ttls, then sees whether another holder can take the conversation.',
        inputSchema: z.object({}),
        async execute() {
          // Long enough that a lease nobody renewed would have expired a whole ttl ago.
          await wait(RENEWED_TTL_MS * 2);
          attempt = await intruder!.conversations.acquire({ sessionId: session.id, conversationId: 'user__worker' }, 'intruder', {
            ttlMs: RENEWED_TTL_MS,
          });
          return { status: 'success', data: 'done' };
        },
      }),
    );
    try {
      expect(await legion.send(session, 'hold it')).toMatchObject({ status: 'success', reply: 'held' });
      expect(attempt).toMatchObject({ acquired: false, holder: { owner: expect.stringContaining('turn of worker') } });
      // Released at the end of the turn: the next holder gets it at once.
      const after = await intruder.conversations.acquire({ sessionId: session.id, conversationId: 'user__worker' }, 'intruder', {
        ttlMs: RENEWED_TTL_MS,
      });
      expect(after.acquired).toBe(true);
      if (after.acquired) await after.lease.release();
    } finally {
      await intruder.close();
      await legion.close();
    }
  });
});

describe('a conversation lease taken over during a turn', () => {
  let test: TestLegion | undefined;
  afterEach(() => test?.cleanup());

  it('aborts the turn (lease_lost), which writes nothing more beside the new holder', async () => {
    // One clock for both instances: moving it past the expiry is what a frozen process sees on waking.
    let now = Date.now();
    const clock = (): number => now;
    const store = new MemorySessionStore();
    let takeover: AcquireResult | undefined;
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none', tools: ['freeze'] })],
      entryAgent: 'worker',
      scripts: { worker: [{ toolCalls: [{ id: 'f1', name: 'freeze', input: {} }] }] },
      backend: 'file',
    });
    const legion = Legion.open({
      root: test.root,
      globalConfigFile: join(test.root, 'no-global-config.json'),
      backend: new MemorySessionBackend({ store, now: clock }),
      leaseTtlMs: TTL_MS,
    });
    legion.providers.useFor('worker', test.providers['worker']!);
    const intruder = new MemorySessionBackend({ store, now: clock });
    const errors: string[] = [];
    legion.events.on('error:raised', (event) => errors.push(event.code ?? ''));
    const session = await legion.sessions.create();
    legion.tools.register(
      defineTool({
        name: 'freeze',
        effect: 'read',
        description: 'Stands for a process frozen past its lease: the clock jumps, another holder takes over.',
        inputSchema: z.object({}),
        async execute(_input, context) {
          now += TTL_MS * 10;
          takeover = await intruder.conversations.acquire({ sessionId: session.id, conversationId: 'user__worker' }, 'intruder', {
            ttlMs: TTL_MS * 100,
          });
          // The next renewal finds the lease gone and aborts the turn.
          await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
          return { status: 'success', data: 'thawed' };
        },
      }),
    );
    try {
      const result = await legion.send(session, 'freeze');
      expect(takeover?.acquired).toBe(true);
      expect(result).toMatchObject({ status: 'error', code: 'lease_lost' });
      expect(errors).toContain('lease_lost');
      // The frozen turn's tool result was not appended after the takeover.
      const logged = await intruder.conversations.recent({ sessionId: session.id, conversationId: 'user__worker' }, 10);
      expect(logged.map((message) => message.role)).toEqual(['user', 'assistant']);
      test.assertScriptsDone();
    } finally {
      if (takeover?.acquired) await takeover.lease.release();
      await intruder.close();
      await legion.close();
    }
  });
});

describe.each(['file', 'memory'] as const)('a turn whose lease was taken over before any renewal noticed (%s backend)', (kind) => {
  let test: TestLegion | undefined;
  afterEach(() => test?.cleanup());

  it('has its next append refused by the backend (the lease it carries is stale): the turn ends lease_lost, nothing of it after the new holder', async () => {
    // No renewal runs in this test (an hour's ttl): only the lease each append carries can stop the stale turn.
    let now = Date.now();
    const clock = (): number => now;
    const store = new MemorySessionStore();
    let takeover: AcquireResult | undefined;
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none', tools: ['freeze'] })],
      entryAgent: 'worker',
      scripts: { worker: [{ toolCalls: [{ id: 'f1', name: 'freeze', input: {} }] }] },
      backend: 'file',
    });
    const options = { root: test.root, globalConfigFile: join(test.root, 'no-global-config.json'), leaseTtlMs: 3_600_000 };
    const legion = Legion.open({
      ...options,
      backend:
        kind === 'memory' ? new MemorySessionBackend({ store, now: clock }) : new FileSessionBackend({ root: test.root, now: clock }),
    });
    legion.providers.useFor('worker', test.providers['worker']!);
    const intruder =
      kind === 'memory' ? new MemorySessionBackend({ store, now: clock }) : new FileSessionBackend({ root: test.root, now: clock });
    const errors: string[] = [];
    legion.events.on('error:raised', (event) => errors.push(event.code ?? ''));
    const session = await legion.sessions.create();
    const address = { sessionId: session.id, conversationId: 'user__worker' };
    legion.tools.register(
      defineTool({
        name: 'freeze',
        effect: 'read',
        description:
          'Stands for a process paused past its lease: the clock jumps, another holder takes over and answers, then this one goes on.',
        inputSchema: z.object({}),
        async execute() {
          now += 3_600_000 * 2;
          takeover = await intruder.conversations.acquire(address, 'intruder', { ttlMs: 3_600_000 });
          if (!takeover.acquired) throw new Error('the intruder got no lease');
          await intruder.conversations.append(
            address,
            {
              kind: 'message',
              id: 'theirs',
              at: new Date(now).toISOString(),
              role: 'user',
              content: [{ type: 'text', text: 'the new holder answers' }],
            },
            takeover.lease,
          );
          return { status: 'success', data: 'the stale result' };
        },
      }),
    );
    try {
      const result = await legion.send(session, 'freeze');
      expect(result).toMatchObject({ status: 'error', code: 'lease_lost', error: expect.stringContaining('taken over') });
      expect(errors).toContain('lease_lost');
      const entries = await intruder.conversations.entries(address);
      // The stale tool result, and any note of how the stale turn ended, were refused.
      expect(entries.map((entry) => (entry.kind === 'message' ? `${entry.role}:${entry.content[0]?.type}` : entry.kind))).toEqual([
        'user:text',
        'assistant:tool_use',
        'user:text',
      ]);
      expect(JSON.stringify(entries)).not.toContain('the stale result');
      test.assertScriptsDone();
    } finally {
      if (takeover?.acquired) await takeover.lease.release();
      await intruder.close();
      await legion.close();
    }
  });
});

describe('a turn that lost its lease before its tool phase', () => {
  let test: TestLegion | undefined;
  afterEach(() => test?.cleanup());

  it('asks for no approval (the approvals log carries no lease): it ends lease_lost and nothing waits on anyone', async () => {
    let now = Date.now();
    const clock = (): number => now;
    const store = new MemorySessionStore();
    let takeover: Promise<AcquireResult> | undefined;
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none', tools: ['file_write'] })],
      entryAgent: 'worker',
      scripts: { worker: [{ toolCalls: [{ id: 'w1', name: 'file_write', input: { path: 'notes.txt', content: 'stale' } }] }] },
      backend: 'file',
    });
    const legion = Legion.open({
      root: test.root,
      globalConfigFile: join(test.root, 'no-global-config.json'),
      backend: new MemorySessionBackend({ store, now: clock }),
      leaseTtlMs: 3_600_000,
    });
    legion.providers.useFor('worker', test.providers['worker']!);
    const intruder = new MemorySessionBackend({ store, now: clock });
    const session = await legion.sessions.create();
    // The model's call is in the log; then the process is paused past its lease and another takes the conversation.
    legion.events.on('message:sent', (event) => {
      if (event.message.role !== 'assistant' || takeover) return;
      now += 3_600_000 * 2;
      takeover = intruder.conversations.acquire({ sessionId: session.id, conversationId: 'user__worker' }, 'intruder', {
        ttlMs: 3_600_000,
      });
    });
    try {
      const result = await legion.send(session, 'write the notes');
      expect((await takeover)?.acquired).toBe(true);
      expect(result).toMatchObject({ status: 'error', code: 'lease_lost' });
      expect(await intruder.approvals.read(session.id)).toEqual([]);
      test.assertScriptsDone();
    } finally {
      const taken = await takeover;
      if (taken?.acquired) await taken.lease.release();
      await intruder.close();
      await legion.close();
    }
  });
});
