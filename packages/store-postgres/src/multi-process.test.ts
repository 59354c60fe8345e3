// Several Legion processes on one PostgreSQL database: the guarantees of the file store, across processes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initWorkspace, textOf, type Message } from '@legion-collective/core';
import { agentParticipant, mockParticipant, runNodeChild, userParticipant, type ChildRun } from '@legion-collective/core/testing';
import { PostgresSessionBackend } from './PostgresSessionBackend.js';
import { createTestDatabase, postgresSkipped } from './test-support/test-database.js';

const WORKER = fileURLToPath(new URL('./__fixtures__/pg-worker.mjs', import.meta.url));

describe.skipIf(postgresSkipped() !== undefined)('many Legion processes on one PostgreSQL database', () => {
  let root: string;
  let url: string;
  let sessionId: string;
  const children: ChildRun[] = [];
  let backend: PostgresSessionBackend;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'legion-pg-multi-'));
    initWorkspace(root, {
      participants: [userParticipant(), mockParticipant('echo', [], 'echoed'), agentParticipant('worker', { delegation: 'none' })],
      entryAgent: 'worker',
    });
    url = await createTestDatabase('multi');
    backend = new PostgresSessionBackend({ url });
    sessionId = (await backend.sessions.create()).id;
  });
  afterEach(async () => {
    for (const run of children.splice(0)) {
      if (run.child.exitCode === null && run.child.signalCode === null) {
        run.child.kill('SIGKILL');
        await run.exited;
      }
    }
    await backend.close();
    rmSync(root, { recursive: true, force: true });
  });

  const worker = (...args: string[]): ChildRun => {
    const run = runNodeChild(WORKER, [args[0]!, root, url, sessionId, ...args.slice(1)]);
    children.push(run);
    return run;
  };
  const messages = (conversationId: string): Promise<Message[]> => backend.conversations.recent({ sessionId, conversationId }, 10_000);

  it('8 processes sending at once, to one conversation and to their own: nothing lost, duplicated or interleaved', async () => {
    const perProcess = 4;
    const runs = Array.from({ length: 8 }, (_, index) =>
      index < 4 ? worker('send', `shared${index}`, String(perProcess)) : worker('send', `own${index}`, String(perProcess), `own${index}`),
    );
    await Promise.all(runs.map((run) => run.waitFor((line) => line === 'READY', 'READY')));
    for (const run of runs) run.child.stdin.write('go\n');
    const done = await Promise.all(runs.map((run) => run.waitFor((line) => line.startsWith('DONE '), 'DONE')));
    for (const line of done) expect(JSON.parse(line.slice('DONE '.length))).toEqual(Array.from({ length: perProcess }, () => 'echoed'));

    const expectTurns = (log: Message[], sent: string[]): void => {
      // Every message answered before the next one came in: user, assistant, user, assistant, …
      expect(log.map((message) => message.role)).toEqual(sent.flatMap(() => ['user', 'assistant']));
      expect(
        log
          .filter((message) => message.role === 'user')
          .map(textOf)
          .sort(),
      ).toEqual([...sent].sort());
      expect(new Set(log.map((message) => message.id)).size).toBe(log.length);
      // Each process's own messages in the order it sent them.
      for (const prefix of new Set(sent.map((text) => text.split('-')[0]))) {
        const own = log.filter((message) => message.role === 'user' && textOf(message).startsWith(`${prefix}-`)).map(textOf);
        expect(own).toEqual(Array.from({ length: perProcess }, (_, index) => `${prefix}-${index}`));
      }
    };
    expectTurns(
      await messages('user__echo'),
      [0, 1, 2, 3].flatMap((process) => Array.from({ length: perProcess }, (_, index) => `shared${process}-${index}`)),
    );
    for (const index of [4, 5, 6, 7])
      expectTurns(
        await messages(`user__echo__own${index}`),
        Array.from({ length: perProcess }, (_, step) => `own${index}-${step}`),
      );
  });

  it('a worker killed mid-turn: another process takes its lease at once and answers the dangling tool call as interrupted, once', async () => {
    const hung = worker('hang');
    await hung.waitFor((line) => line === 'TOOL_STARTED', 'TOOL_STARTED');
    const address = { sessionId, conversationId: 'user__worker' };
    const refused = await backend.conversations.acquire(address, 'probe', { ttlMs: 60_000 });
    expect(refused.acquired).toBe(false);
    hung.child.kill('SIGKILL');
    await hung.exited;
    // Two processes resume at once; the lease lets one turn run at a time, and the repair happens once.
    const resumers = [worker('resume'), worker('resume')];
    const results = await Promise.all(resumers.map((run) => run.waitFor((line) => line.startsWith('DONE '), 'DONE')));
    const statuses = results.map((line) => (JSON.parse(line.slice('DONE '.length)) as { status: string }).status);
    expect(statuses.filter((status) => status === 'success').length).toBeGreaterThanOrEqual(1);
    const log = await messages('user__worker');
    const interrupted = log.flatMap((message) =>
      message.content.filter((block) => block.type === 'tool_result' && block.toolUseId === 'hang-1'),
    );
    expect(interrupted).toEqual([
      expect.objectContaining({
        type: 'tool_result',
        toolUseId: 'hang-1',
        isError: true,
        content: expect.stringMatching(/^interrupted: .*hang/),
      }),
    ]);
    expect(log.slice(0, 3).map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('a file claim whose holder process was killed (SIGKILL) does not block: not listed, and the next writer takes it', async () => {
    const claim = (conversationId: string) => ({
      version: 1 as const,
      path: 'src/shared.ts',
      sessionId,
      conversationId,
      participantId: conversationId.split('__')[1]!,
      doing: 'Change src/shared.ts',
      since: new Date().toISOString(),
    });
    const holder = worker('claim', JSON.stringify(claim('lead__alpha')));
    await holder.waitFor((line) => line === 'HELD', 'HELD');
    // While it lives, it holds the path.
    expect(await backend.fileClaims.take(claim('lead__beta'))).toMatchObject({ taken: false, holder: { conversationId: 'lead__alpha' } });
    expect((await backend.fileClaims.list()).map((held) => held.conversationId)).toEqual(['lead__alpha']);
    holder.child.kill('SIGKILL');
    await holder.exited;
    // Its connection ended with it, and its advisory lock: the claim is gone at once, with no expiry to wait out.
    await expect.poll(async () => (await backend.fileClaims.list()).length, { timeout: 10_000 }).toBe(0);
    expect(await backend.fileClaims.take(claim('lead__beta'))).toEqual({ taken: true });
    expect((await backend.fileClaims.get('src/shared.ts'))?.conversationId).toBe('lead__beta');
  });

  it('a process paused (SIGSTOP) past its lease mid-turn writes nothing after another process took the conversation over and answered', async () => {
    const LEASE_MS = '1500';
    const stale = worker('stale', LEASE_MS);
    await stale.waitFor((line) => line === 'MODEL_CALLED', 'MODEL_CALLED');
    // Frozen while its model holds the answer: its lease is not renewed, and expires.
    stale.child.kill('SIGSTOP');
    const taker = worker('takeover', LEASE_MS);
    const taken = JSON.parse((await taker.waitFor((line) => line.startsWith('DONE '), 'DONE')).slice('DONE '.length)) as {
      status: string;
      reply?: string;
    };
    expect(taken).toMatchObject({ status: 'success', reply: 'plan from B' });
    // The model's answer is there when it wakes: the stale turn goes on as if nothing happened.
    stale.child.stdin.write('answer now\n');
    stale.child.kill('SIGCONT');
    const ended = JSON.parse((await stale.waitFor((line) => line.startsWith('DONE '), 'DONE')).slice('DONE '.length)) as {
      status: string;
      code?: string;
      error?: string;
    };
    expect(ended).toMatchObject({ status: 'error', code: 'lease_lost', error: expect.stringContaining('taken over') });
    const log = await messages('user__worker');
    expect(log.map((message) => `${message.role}: ${textOf(message)}`)).toEqual([
      'user: What is the plan?',
      'user: Still there?',
      'assistant: plan from B',
    ]);
    // Nor a note of how the stale turn ended: nothing of it after the takeover.
    const entries = await backend.conversations.entries({ sessionId, conversationId: 'user__worker' });
    expect(entries.map((entry) => entry.kind)).toEqual(['message', 'message', 'message']);
  });

  it("a follower in one process is woken by another process's appends (NOTIFY), without waiting for its poll", async () => {
    const follower = worker('follow');
    await follower.waitFor((line) => line === 'READY', 'READY');
    const sender = worker('send', 'note', '1');
    await sender.waitFor((line) => line === 'READY', 'READY');
    sender.child.stdin.write('go\n');
    // The follower polls every ten minutes: this line comes from the notification.
    expect(await follower.waitFor((line) => line === 'REMOTE echoed', 'the reply, followed')).toBe('REMOTE echoed');
    expect(follower.lines()).toContain('REMOTE note-0');
  });
});
