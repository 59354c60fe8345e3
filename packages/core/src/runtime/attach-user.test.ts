import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { ApprovalAnswer, ApprovalView } from '../authorization/approval-records.js';
import type { Message } from '../conversation/message.js';
import { AnsweredElsewhereError, SurfaceDetachedError } from '../errors.js';
import type { LegionEvents } from '../events/event-types.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../testing/index.js';
import { defineTool } from '../tools/tool.js';
import type { UserQuestion } from './user-surface.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'authorization', '__fixtures__');

function writeNoteTool(root: string) {
  return defineTool({
    name: 'write_note',
    description: 'Writes a note file',
    effect: 'write',
    inputSchema: z.object({ path: z.string(), text: z.string() }),
    async execute(input) {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(join(root, input.path), input.text);
      return { status: 'success', data: `wrote ${input.path}` };
    },
  });
}

const lastResult = (request: { messages: readonly Message[] }) => {
  const block = request.messages.at(-1)!.content[0];
  if (block?.type !== 'tool_result') throw new Error(`expected a tool_result, got ${JSON.stringify(block)}`);
  return block;
};

/** A promise with its resolve function outside, for "the first surface has been asked". */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** A surface's answer that never comes: it waits until its signal aborts, and reports why. */
function hangUntilAborted<T>(signal: AbortSignal, reasons: unknown[]): Promise<T> {
  return new Promise<T>((_, reject) => {
    signal.addEventListener('abort', () => {
      reasons.push(signal.reason);
      reject(signal.reason);
    }, { once: true });
  });
}

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
function decisionLines(test: TestLegion, sessionId: string): Array<Record<string, unknown>> {
  const text = readFileSync(join(test.root, '.legion', 'sessions', sessionId, 'approvals.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.kind === 'decision');
}

describe('legion.attachUser: one door for every user surface', () => {
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
    const session = test.legion.sessions.create();
    expect(await test.legion.send(session, 'write it', { to: 'solo' })).toMatchObject({ status: 'success', reply: 'tool said: wrote note.txt' });
    expect(terminalReasons).toHaveLength(1);
    expect(terminalReasons[0]).toBeInstanceOf(AnsweredElsewhereError);
    expect(terminalReasons[0]).toMatchObject({ code: 'answered_elsewhere', medium: 'web' });
    expect(session.approvals.list()).toMatchObject([{ status: 'approved', decidedBy: 'user', decisionMedium: 'web' }]);
    expect(decisionLines(test, session.id)).toMatchObject([{ decision: 'approved', decidedBy: 'user', medium: 'web' }]);
    // A fresh process reads the medium back from the log.
    const reopened = test.reopen();
    expect(reopened.sessions.get(session.id).approvals.list()).toMatchObject([{ decisionMedium: 'web' }]);
    await reopened.close();
  });

  it('offers a question to two surfaces; the second answers, the first is aborted naming it, and the reply carries its medium', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] },
          { expect: (request) => expect(lastResult(request).content).toBe('8080'), text: 'Using 8080' },
        ],
      },
    });
    const replAsked = deferred<UserQuestion>();
    const replReasons: unknown[] = [];
    test.legion.attachUser({
      medium: 'repl',
      ask: (question, { signal }) => {
        replAsked.resolve(question);
        return hangUntilAborted(signal, replReasons);
      },
    });
    test.legion.attachUser({
      medium: 'web',
      ask: async () => {
        await replAsked.promise;
        return '8080';
      },
    });
    const sent: Array<LegionEvents['message:sent']> = [];
    test.legion.events.on('message:sent', (event) => sent.push(event));
    const session = test.legion.sessions.create();
    expect(await test.legion.send(session, 'start the server')).toMatchObject({ reply: 'Using 8080' });
    expect(await replAsked.promise).toMatchObject({ from: 'coordinator', text: 'Which port?', chain: ['user', 'coordinator'], user: { id: 'user' }, conversation: { conversationId: 'coordinator__user' } });
    expect(replReasons).toEqual([expect.any(AnsweredElsewhereError)]);
    expect(replReasons[0]).toMatchObject({ medium: 'web' });
    const reply = sent.find((event) => event.conversationId === 'coordinator__user' && event.author === 'user');
    expect(reply?.message).toMatchObject({ role: 'assistant', medium: 'web', content: [{ type: 'text', text: '8080' }] });
    // The medium is in the log, not only in the event.
    const log = readFileSync(join(test.root, '.legion', 'sessions', session.id, 'conversations', 'coordinator__user.jsonl'), 'utf8');
    expect(log.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.id === reply?.message.id)).toMatchObject({ medium: 'web' });
    test.assertScriptsDone();
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
          return requests.map((request) => (index % 2 === 0 ? { id: request.id, decision: 'approve' } : { id: request.id, decision: 'reject', reason: `${medium} says no` }));
        },
      });
    }
    const session = test.legion.sessions.create();
    const result = await test.legion.send(session, 'write it', { to: 'solo' });
    const decisions = decisionLines(test, session.id);
    expect(decisions).toHaveLength(1);
    const winner = String(decisions[0]!.medium);
    expect(winner).toMatch(/^surface-\d$/);
    expect([...reasons.keys()].sort()).toEqual(Array.from({ length: 8 }, (_, index) => `surface-${index}`).filter((medium) => medium !== winner));
    for (const reason of reasons.values()) expect(reason).toMatchObject({ code: 'answered_elsewhere', medium: winner });
    const approved = Number(winner.slice('surface-'.length)) % 2 === 0;
    expect(decisions[0]).toMatchObject({ decision: approved ? 'approved' : 'rejected' });
    expect(existsSync(join(test.root, 'note.txt'))).toBe(approved);
    expect(result).toMatchObject({ reply: approved ? 'tool said: wrote note.txt' : `tool said: Rejected: user rejected it: ${winner} says no` });
  });

  it('a surface that throws loses nothing: another answers; when every surface fails, the approval pauses durably and a question gets "not available"', async () => {
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
    const session = test.legion.sessions.create();
    expect(await test.legion.send(session, 'write it', { to: 'solo' })).toMatchObject({ reply: 'tool said: wrote note.txt' });
    expect(session.approvals.list()).toMatchObject([{ status: 'approved', decisionMedium: 'web' }]);
    expect(failures.map((event) => event.scope).sort()).toEqual(['user surface broken', 'user surface garbled']);
    expect(failures.find((event) => event.scope === 'user surface broken')).toMatchObject({ message: 'the tab crashed', code: 'user_surface_failed' });
  });

  it('when every surface fails, an approval pauses durably as with none attached', async () => {
    test = soloWriter();
    test.legion.attachUser({ medium: 'broken', approve: () => Promise.reject(new Error('no one home')), ask: () => Promise.reject(new Error('no one home')) });
    const session = test.legion.sessions.create();
    const result = await test.legion.send(session, 'write it', { to: 'solo' });
    expect(result).toMatchObject({ status: 'approval_required', requests: [{ tool: 'write_note', status: 'pending' }] });
    expect(session.approvals.pending()).toHaveLength(1);
    expect(decisionLines(test, session.id)).toEqual([]);
  });

  it('when every surface fails a question, the asking agent is told the user is not available, and why', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] },
          (request) => {
            const result = lastResult(request);
            expect(result.isError).toBe(true);
            expect(result.content).toContain('user is not available: no surface could answer (broken: no one home)');
            expect(result.content).toContain('Make a reasonable assumption');
            return { text: 'Assuming 3000' };
          },
        ],
      },
    });
    test.legion.attachUser({ medium: 'broken', ask: () => Promise.reject(new Error('no one home')) });
    expect(await test.legion.send(test.legion.sessions.create(), 'start the server')).toMatchObject({ reply: 'Assuming 3000' });
    test.assertScriptsDone();
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
    const session = test.legion.sessions.create();
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
    expect(session.approvals.list()).toMatchObject([{ status: 'approved', decisionMedium: 'web' }]);
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
    const session = test.legion.sessions.create();
    const sending = test.legion.send(session, 'write it', { to: 'solo' });
    await asked.promise;
    detach();
    expect(await sending).toMatchObject({ status: 'approval_required', requests: [{ tool: 'write_note', status: 'pending' }] });
    expect(reasons).toEqual([expect.any(SurfaceDetachedError)]);
    expect(session.approvals.pending()).toHaveLength(1);
  });

  it('with no surface that approves (one that only answers questions, or one detached), approvals pause durably and are answered later with the medium', async () => {
    test = soloWriter();
    test.legion.attachUser({ medium: 'chat', ask: async () => 'only questions here' });
    test.legion.attachUser({ medium: 'web', approve: async (requests) => approveAll(requests) })();
    const session = test.legion.sessions.create();
    const paused = await test.legion.send(session, 'write it', { to: 'solo' });
    expect(paused).toMatchObject({ status: 'approval_required', requests: [{ tool: 'write_note', status: 'pending' }] });
    expect(existsSync(join(test.root, 'note.txt'))).toBe(false);
    const id = paused.status === 'approval_required' ? paused.requests[0]!.id : '';
    const answered = await session.answerApprovals([{ id, decision: 'approve' }], 'user', { medium: 'terminal' });
    expect(answered).toMatchObject({ status: 'answered', resumed: [{ status: 'success', reply: 'tool said: wrote note.txt' }] });
    expect(decisionLines(test, session.id)).toMatchObject([{ decision: 'approved', decidedBy: 'user', medium: 'terminal' }]);
  });

  it('with no surface at all, a question to the user gets the headless answer', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] },
          (request) => {
            expect(lastResult(request)).toMatchObject({ isError: true, content: expect.stringContaining('user is not available: no surface that answers questions is attached') });
            return { text: 'Assuming 3000' };
          },
        ],
      },
    });
    const detach = test.legion.attachUser({ medium: 'web', ask: async () => 'too late' });
    detach();
    expect(await test.legion.send(test.legion.sessions.create(), 'start the server')).toMatchObject({ reply: 'Assuming 3000' });
    test.assertScriptsDone();
  });

  it('refuses a surface with no medium or nothing to answer with', () => {
    test = soloWriter();
    expect(() => test.legion.attachUser({ medium: '', approve: async () => [] })).toThrow(/needs a "medium"/);
    expect(() => test.legion.attachUser({ medium: 'web' })).toThrow(/neither "ask" nor "approve"/);
  });

  it('reads an approvals log written before decisions had a medium, and adds decisions with one', async () => {
    test = soloWriter();
    const session = test.legion.sessions.create();
    const file = join(test.root, '.legion', 'sessions', session.id, 'approvals.jsonl');
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(join(fixtures, 'approvals-v1.jsonl'), file);
    const [decided, pending] = session.approvals.list();
    expect(decided).toMatchObject({ id: 'apr_503ae2cf1279', status: 'approved', decidedBy: 'user', decisionMedium: undefined });
    expect(pending).toMatchObject({ id: 'apr_7d14ebeeb8fa', status: 'pending' });
    expect(session.approvals.decide([{ kind: 'decision', version: 1, requestId: 'apr_7d14ebeeb8fa', at: new Date().toISOString(), decision: 'rejected', decidedBy: 'user', medium: 'web' }])).toEqual({ ok: true });
    const reopened = test.reopen();
    expect(reopened.sessions.get(session.id).approvals.list()).toMatchObject([
      { id: 'apr_503ae2cf1279', status: 'approved', decisionMedium: undefined },
      { id: 'apr_7d14ebeeb8fa', status: 'rejected', decidedBy: 'user', decisionMedium: 'web' },
    ]);
    await reopened.close();
  });
});
