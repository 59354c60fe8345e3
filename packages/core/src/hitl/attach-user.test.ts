import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApprovalAnswer, ApprovalView } from '../store/records/approval-records.js';
import { AnsweredElsewhereError, SurfaceDetachedError } from '../kernel/errors.js';
import type { LegionEvents } from '../kernel/events/event-types.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion, writeNoteTool } from '../testing/index.js';
import { deferred, hangUntilAborted, lastResult } from './__fixtures__/surfaces.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'store', 'records', '__fixtures__');

const approveAll = (requests: ApprovalView[]): ApprovalAnswer[] => requests.map((request) => ({ id: request.id, decision: 'approve' }));

/** solo writes one note, which needs the user's approval, and then says how it went. */
function soloWriter(): TestLegion {
  const test = createTestLegion({
    participants: [userParticipant(), agentParticipant('solo', { delegation: 'none' })],
    scripts: {
      solo: [
        { toolCalls: [{ id: 't1', name: 'write_note', input: { path: 'note.txt', text: 'hi' } }] },
        (request) => ({ text: `tool said: ${lastResult(request).content}` }),
      ],
    },
  });
  test.legion.tools.register(writeNoteTool(test.root));
  return test;
}

/** The decision lines of the session's approvals log, as written. */
async function decisionLines(test: TestLegion, sessionId: string): Promise<Array<Record<string, unknown>>> {
  if (test.backend !== 'file') {
    const backend = test.openBackend();
    const records = await backend.approvals.read(sessionId);
    await backend.close();
    return records.filter((record) => record.kind === 'decision');
  }
  const text = readFileSync(join(test.root, '.legion', 'sessions', sessionId, 'approvals.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.kind === 'decision');
}

describe('legion.attachUser: approvals go to every attached surface', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('offers an approval to two surfaces; the second answers, the first is aborted naming it, and the record names its medium', async () => {
    test = soloWriter();
    const terminalAsked = deferred();
    const terminalReasons: unknown[] = [];
    test.legion.attachUser({
      medium: 'terminal',
      approve: (_requests, { signal }) => {
        terminalAsked.resolve();
        return hangUntilAborted(signal, terminalReasons);
      },
    });
    test.legion.attachUser({
      medium: 'web',
      approve: async (requests) => {
        await terminalAsked.promise;
        return approveAll(requests);
      },
    });
    const decided: Array<LegionEvents['approval:decided']> = [];
    test.legion.events.on('approval:decided', (event) => decided.push(event));
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'write it', { to: 'solo' })).toMatchObject({
      status: 'success',
      reply: 'tool said: wrote note.txt',
    });
    expect(decided).toMatchObject([{ decision: 'approved', decidedBy: 'user', medium: 'web' }]);
    expect(terminalReasons).toHaveLength(1);
    expect(terminalReasons[0]).toBeInstanceOf(AnsweredElsewhereError);
    expect(terminalReasons[0]).toMatchObject({ code: 'answered_elsewhere', medium: 'web' });
    expect(await session.approvals.list()).toMatchObject([{ status: 'approved', decidedBy: 'user', decisionMedium: 'web' }]);
    expect(await decisionLines(test, session.id)).toMatchObject([{ decision: 'approved', decidedBy: 'user', medium: 'web' }]);
    // A fresh process reads the medium back from the log.
    const reopened = test.reopen();
    expect(await (await reopened.sessions.get(session.id)).approvals.list()).toMatchObject([{ decisionMedium: 'web' }]);
    await reopened.close();
  });

  it('eight surfaces answering at once, approve and reject alike: exactly one decision is recorded, the rest are told who won', async () => {
    test = soloWriter();
    const asked = { count: 0 };
    const allAsked = deferred();
    const reasons = new Map<string, unknown>();
    for (let index = 0; index < 8; index++) {
      const medium = `surface-${index}`;
      test.legion.attachUser({
        medium,
        approve: async (requests, { signal }) => {
          signal.addEventListener('abort', () => reasons.set(medium, signal.reason), { once: true });
          if (++asked.count === 8) allAsked.resolve();
          await allAsked.promise;
          return requests.map((request) =>
            index % 2 === 0 ? { id: request.id, decision: 'approve' } : { id: request.id, decision: 'reject', reason: `${medium} says no` },
          );
        },
      });
    }
    const session = await test.legion.sessions.create();
    const result = await test.legion.send(session, 'write it', { to: 'solo' });
    const decisions = await decisionLines(test, session.id);
    expect(decisions).toHaveLength(1);
    const winner = String(decisions[0]!.medium);
    expect(winner).toMatch(/^surface-\d$/);
    expect([...reasons.keys()].sort()).toEqual(
      Array.from({ length: 8 }, (_, index) => `surface-${index}`).filter((medium) => medium !== winner),
    );
    for (const reason of reasons.values()) expect(reason).toMatchObject({ code: 'answered_elsewhere', medium: winner });
    const approved = Number(winner.slice('surface-'.length)) % 2 === 0;
    expect(decisions[0]).toMatchObject({ decision: approved ? 'approved' : 'rejected' });
    expect(existsSync(join(test.root, 'note.txt'))).toBe(approved);
    expect(result).toMatchObject({
      reply: approved ? 'tool said: wrote note.txt' : `tool said: Rejected: user rejected it: ${winner} says no`,
    });
  });

  it('a surface that throws or answers garbage loses nothing: another answers', async () => {
    test = soloWriter();
    const failures: Array<LegionEvents['error:raised']> = [];
    const failed = deferred();
    test.legion.events.on('error:raised', (event) => {
      failures.push(event);
      if (failures.length === 2) failed.resolve();
    });
    test.legion.attachUser({
      medium: 'broken',
      approve: async () => {
        throw new Error('the tab crashed');
      },
    });
    // Garbage is a failure too: an answer is parsed before it counts.
    test.legion.attachUser({ medium: 'garbled', approve: async () => [{ id: 42 }] as unknown as ApprovalAnswer[] });
    test.legion.attachUser({
      medium: 'web',
      approve: async (requests) => {
        await failed.promise;
        return approveAll(requests);
      },
    });
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'write it', { to: 'solo' })).toMatchObject({ reply: 'tool said: wrote note.txt' });
    expect(await session.approvals.list()).toMatchObject([{ status: 'approved', decisionMedium: 'web' }]);
    expect(failures.map((event) => event.scope).sort()).toEqual(['user surface broken', 'user surface garbled']);
    expect(failures.find((event) => event.scope === 'user surface broken')).toMatchObject({
      message: 'the tab crashed',
      code: 'user_surface_failed',
    });
  });

  it('when every surface fails, an approval pauses durably as with none attached', async () => {
    test = soloWriter();
    test.legion.attachUser({
      medium: 'broken',
      approve: () => Promise.reject(new Error('no one home')),
      ask: () => Promise.reject(new Error('no one home')),
    });
    const session = await test.legion.sessions.create();
    const result = await test.legion.send(session, 'write it', { to: 'solo' });
    expect(result).toMatchObject({ status: 'paused', requests: [{ tool: 'write_note', status: 'pending' }] });
    expect(await session.approvals.pending()).toHaveLength(1);
    expect(await decisionLines(test, session.id)).toEqual([]);
  });

  it('detaching a surface mid-question aborts its offer; a surface attached meanwhile gets the question and answers it', async () => {
    test = soloWriter();
    const terminalAsked = deferred<AbortSignal>();
    const terminalReasons: unknown[] = [];
    const detachTerminal = test.legion.attachUser({
      medium: 'terminal',
      approve: (_requests, { signal }) => {
        terminalAsked.resolve(signal);
        return hangUntilAborted(signal, terminalReasons);
      },
    });
    const session = await test.legion.sessions.create();
    const sending = test.legion.send(session, 'write it', { to: 'solo' });
    const terminalSignal = await terminalAsked.promise;
    // The browser opens while the terminal still shows the prompt, then the terminal goes away.
    const webAnswer = deferred();
    const webAsked = deferred<ApprovalView[]>();
    test.legion.attachUser({
      medium: 'web',
      approve: async (requests) => {
        webAsked.resolve(requests);
        await webAnswer.promise;
        return approveAll(requests);
      },
    });
    expect(await webAsked.promise).toMatchObject([{ tool: 'write_note', status: 'pending' }]);
    detachTerminal();
    expect(terminalSignal.aborted).toBe(true);
    expect(terminalReasons).toEqual([expect.any(SurfaceDetachedError)]);
    expect(terminalReasons[0]).toMatchObject({ code: 'surface_detached', medium: 'terminal' });
    webAnswer.resolve();
    expect(await sending).toMatchObject({ reply: 'tool said: wrote note.txt' });
    expect(await session.approvals.list()).toMatchObject([{ status: 'approved', decisionMedium: 'web' }]);
  });

  it('detaching the only surface mid-question pauses the approval durably, as with none attached', async () => {
    test = soloWriter();
    const asked = deferred();
    const reasons: unknown[] = [];
    const detach = test.legion.attachUser({
      medium: 'terminal',
      approve: (_requests, { signal }) => {
        asked.resolve();
        return hangUntilAborted(signal, reasons);
      },
    });
    const session = await test.legion.sessions.create();
    const sending = test.legion.send(session, 'write it', { to: 'solo' });
    await asked.promise;
    detach();
    expect(await sending).toMatchObject({ status: 'paused', requests: [{ tool: 'write_note', status: 'pending' }] });
    expect(reasons).toEqual([expect.any(SurfaceDetachedError)]);
    expect(await session.approvals.pending()).toHaveLength(1);
  });

  it('with no surface that approves (one that only answers questions, or one detached), approvals pause durably and are answered later with the medium', async () => {
    test = soloWriter();
    test.legion.attachUser({ medium: 'chat', ask: async () => 'only questions here' });
    test.legion.attachUser({ medium: 'web', approve: async (requests) => approveAll(requests) })();
    const session = await test.legion.sessions.create();
    const paused = await test.legion.send(session, 'write it', { to: 'solo' });
    expect(paused).toMatchObject({ status: 'paused', requests: [{ tool: 'write_note', status: 'pending' }] });
    expect(existsSync(join(test.root, 'note.txt'))).toBe(false);
    const id = paused.status === 'paused' ? paused.requests[0]!.id : '';
    const answered = await session.answerApprovals([{ id, decision: 'approve' }], 'user', { medium: 'terminal' });
    expect(answered).toMatchObject({ status: 'answered', resumed: [{ status: 'success', reply: 'tool said: wrote note.txt' }] });
    expect(await decisionLines(test, session.id)).toMatchObject([{ decision: 'approved', decidedBy: 'user', medium: 'terminal' }]);
  });

  it('refuses a surface with no medium or nothing to answer with', () => {
    test = soloWriter();
    expect(() => test.legion.attachUser({ medium: '', approve: async () => [] })).toThrow(/needs a "medium"/);
    expect(() => test.legion.attachUser({ medium: 'web' })).toThrow(/neither "ask" nor "approve"/);
  });

  // A file of today's workspaces, copied in: the file backend's.
  it.skipIf((process.env['LEGION_TEST_BACKEND'] ?? 'file') !== 'file')(
    'reads an approvals log written before decisions had a medium, and adds decisions with one',
    async () => {
      test = soloWriter();
      const session = await test.legion.sessions.create();
      const file = join(test.root, '.legion', 'sessions', session.id, 'approvals.jsonl');
      mkdirSync(dirname(file), { recursive: true });
      copyFileSync(join(fixtures, 'approvals-v1.jsonl'), file);
      const [decided, pending] = await session.approvals.list();
      expect(decided).toMatchObject({ id: 'apr_503ae2cf1279', status: 'approved', decidedBy: 'user', decisionMedium: undefined });
      expect(pending).toMatchObject({ id: 'apr_7d14ebeeb8fa', status: 'pending' });
      expect(
        await session.approvals.decide([
          {
            kind: 'decision',
            version: 1,
            requestId: 'apr_7d14ebeeb8fa',
            at: new Date().toISOString(),
            decision: 'rejected',
            decidedBy: 'user',
            medium: 'web',
          },
        ]),
      ).toEqual({ ok: true });
      const reopened = test.reopen();
      expect(await (await reopened.sessions.get(session.id)).approvals.list()).toMatchObject([
        { id: 'apr_503ae2cf1279', status: 'approved', decisionMedium: undefined },
        { id: 'apr_7d14ebeeb8fa', status: 'rejected', decidedBy: 'user', decisionMedium: 'web' },
      ]);
      await reopened.close();
    },
  );
});
