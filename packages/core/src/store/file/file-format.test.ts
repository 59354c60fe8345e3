import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HeaderEntry } from '../records/log-entry.js';
import { SESSION_FORMAT_VERSION, type SessionMeta } from '../records/session-meta.js';
import { agentParticipant, createTestLegion, userParticipant } from '../../testing/test-collective.js';
import { readScratchbook, ScratchbookFileSchema, writeScratchbook } from '../../tools/builtin/scratchbook/scratchbook.js';
import { readTodos, TodoFileSchema, writeTodos } from '../../tools/builtin/planning/todo-list.js';
import { FileConversationLog } from './FileConversationLog.js';
import { WorkspacePaths } from '../fs/workspace-paths.js';
import { approvalRequest, decision, messageEntry, usageRecord } from '../../testing/backend-contract/harness.js';
import type { StorageWarning } from '../session-backend.js';
import { FileSessionBackend } from './FileSessionBackend.js';
import { appendUnderLease } from '../../testing/append-under-lease.js';

// The file backend reads what Legion wrote before it existed, and writes what that code reads.

const FIXTURE_V1 = fileURLToPath(new URL('../records/__fixtures__/conversation-v1.jsonl', import.meta.url));
const APPROVALS_V1 = fileURLToPath(new URL('../records/__fixtures__/approvals-v1.jsonl', import.meta.url));
/** Questions as this Legion writes them (version 1): answered, withdrawn, pending, and a line it cannot read. */
const QUESTIONS_V1 = fileURLToPath(new URL('../records/__fixtures__/questions-v1.jsonl', import.meta.url));
/** A workspace an older Legion wrote (approval records version 1), paused on approvals: see hitl/__fixtures__/write-workspace-v1.mjs. */
const WORKSPACE_V1 = fileURLToPath(new URL('../../hitl/__fixtures__/workspace-v1', import.meta.url));

/** Every file under `dir` with its bytes, to see that reading changed nothing. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      files[join(entry.parentPath, entry.name).slice(dir.length)] = readFileSync(join(entry.parentPath, entry.name), 'base64');
  }
  return files;
}
const SESSION = '20250115-090000-abc123';

let root: string;
let paths: WorkspacePaths;
const closers: Array<() => void | Promise<void>> = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'legion-file-format-'));
  paths = new WorkspacePaths(root);
  const meta: SessionMeta = {
    version: SESSION_FORMAT_VERSION,
    id: SESSION,
    createdAt: '2025-01-15T09:00:00.000Z',
    lastActiveAt: '2025-01-15T09:01:00.000Z',
  };
  mkdirSync(paths.sessionDir(SESSION), { recursive: true });
  writeFileSync(paths.sessionFile(SESSION), JSON.stringify(meta, null, 2));
});

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  rmSync(root, { recursive: true, force: true });
});

function backend(): FileSessionBackend {
  const opened = new FileSessionBackend({ root });
  closers.push(() => opened.close());
  return opened;
}

function oldLog(conversationId: string): FileConversationLog {
  const log = new FileConversationLog(paths.conversationFile(SESSION, conversationId), paths.conversationLock(SESSION, conversationId));
  closers.push(() => log.close());
  return log;
}

/** The fixture workspace's approvals as read: each request's frames, `participant@conversation/call`, and each decision. */
const FIXTURE_APPROVALS: Record<string, string[]> = {
  '20261125-192632-0b3898': ['apr_8f4c0db9463a v2: user@user__coordinator coordinator@user__coordinator/c1'],
  '20261125-192632-9074e5': [
    'apr_f43caada9d78 v2: user@user__lead lead@user__lead/l1 coordinator@lead__coordinator/c2',
    'apr_f43caada9d78 approved',
    'apr_e6a9d3019abb v2: user@user__lead lead@user__lead/l2 coordinator@lead__coordinator/c3',
  ],
};

/** The deep session's fixture holds a decision that was only claimed (its process died before logging it). */
function records9074e5Decided(records: ReadonlyArray<{ kind: string }>): boolean {
  return records.some((record) => record.kind === 'decision');
}

describe('FileSessionBackend on files written by earlier Legion code', () => {
  it('reads the version 1 conversation fixture as FileConversationLog does, without changing a byte', async () => {
    const file = paths.conversationFile(SESSION, 'user__coordinator');
    mkdirSync(paths.conversationsDir(SESSION), { recursive: true });
    copyFileSync(FIXTURE_V1, file);
    const before = readFileSync(file);
    const address = { sessionId: SESSION, conversationId: 'user__coordinator' };
    const files = backend();
    const expected = oldLog('user__coordinator').context();
    expect(expected.length).toBe(5);
    expect(await files.conversations.header(address)).toEqual(oldLog('user__coordinator').header());
    const context = await files.conversations.context(address);
    expect(context.messages).toEqual(expected);
    expect(context.compaction).toBeUndefined();
    expect(await files.conversations.recent(address, 2)).toEqual(expected.slice(-2));
    expect(await files.conversations.list(SESSION)).toEqual(['user__coordinator']);
    expect((await files.sessions.get(SESSION))?.lastActiveAt).toBe('2025-01-15T09:01:00.000Z');
    expect(readFileSync(file)).toEqual(before);
  });

  it('writes the conversation lines FileConversationLog writes, each starting with its kind', async () => {
    const header: HeaderEntry = {
      kind: 'header',
      version: 1,
      conversationId: 'user__dev',
      initiator: 'user',
      responder: 'dev',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const message = messageEntry('hello');
    const note = { kind: 'note' as const, level: 'error' as const, code: 'boom', text: 'it failed', at: '2026-01-01T00:00:01.000Z' };
    const old = oldLog('user__old');
    old.ensureHeader({ ...header, conversationId: 'user__old' });
    const { kind: _kind, ...plain } = message;
    old.appendMessage(plain);
    old.appendNote(note);
    const address = { sessionId: SESSION, conversationId: 'user__dev' };
    const files = backend();
    await files.conversations.ensureHeader(address, header);
    await appendUnderLease(files, address, message);
    // Fields in another order than Legion writes them: the line still starts with its kind.
    await appendUnderLease(files, address, { at: note.at, text: note.text, code: note.code, level: note.level, kind: 'note' });
    const written = readFileSync(paths.conversationFile(SESSION, 'user__dev'), 'utf8');
    const byOldCode = readFileSync(paths.conversationFile(SESSION, 'user__old'), 'utf8');
    const lines = written.trim().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual(
      byOldCode
        .replace('user__old', 'user__dev')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    );
    // Readers classify a line by its start (a history is read backwards without parsing every line).
    expect(lines.map((line) => /^\{"kind":"(\w+)"/.exec(line)?.[1])).toEqual(['header', 'message', 'note']);
    expect(oldLog('user__dev').context()).toEqual([plain]);
  });

  it('shares the conversation lock with FileConversationLog.tryLock, both ways', async () => {
    const address = { sessionId: SESSION, conversationId: 'user__dev' };
    const files = backend();
    const old = oldLog('user__dev');
    expect(old.tryLock('turn of dev')).toBe(true);
    const refused = await files.conversations.acquire(address, 'backend turn', { ttlMs: 60_000 });
    expect(refused).toEqual({ acquired: false, holder: { owner: 'this process: turn of dev', expiresAt: undefined } });
    old.unlock();
    const taken = await files.conversations.acquire(address, 'backend turn', { ttlMs: 60_000 });
    expect(taken.acquired).toBe(true);
    expect(oldLog('user__dev').tryLock('turn of dev')).toBe(false);
    expect(JSON.parse(readFileSync(paths.conversationLock(SESSION, 'user__dev'), 'utf8'))).toMatchObject({
      pid: process.pid,
      owner: 'backend turn',
      purpose: 'backend turn',
    });
  });

  it('reads approvals as earlier Legion wrote them, a decision only claimed included, and decides writing the same bytes', async () => {
    const first = approvalRequest('apr_1');
    const second = approvalRequest('apr_2');
    const third = approvalRequest('apr_3');
    const logged = decision('apr_1', 'user');
    // What Legion has always written: one JSON line per record, and a claim file (JSON, two-space indents) per decision.
    const claimsDir = join(paths.sessionDir(SESSION), 'approval-decisions');
    mkdirSync(claimsDir, { recursive: true });
    writeFileSync(join(claimsDir, 'apr_1.json'), `${JSON.stringify(logged, null, 2)}\n`);
    writeFileSync(paths.approvalsFile(SESSION), [first, second, third, logged].map((record) => `${JSON.stringify(record)}\n`).join(''));
    // A process that died after claiming its decision, before logging it.
    const claimedOnly = decision('apr_2', 'lead');
    writeFileSync(join(claimsDir, 'apr_2.json'), JSON.stringify(claimedOnly));
    const before = readFileSync(paths.approvalsFile(SESSION), 'utf8');
    const files = backend();
    expect(await files.approvals.read(SESSION)).toEqual([first, second, third, logged, claimedOnly]);
    expect(await files.approvals.claim(SESSION, [decision('apr_2', 'user')])).toEqual({ ok: false, taken: [claimedOnly] });
    expect(await files.approvals.claim(SESSION, [decision('apr_1', 'user', 'rejected')])).toEqual({ ok: false, taken: [logged] });
    const mine = decision('apr_3', 'user', 'rejected');
    expect(await files.approvals.claim(SESSION, [mine])).toEqual({ ok: true });
    expect(readFileSync(paths.approvalsFile(SESSION), 'utf8')).toBe(`${before}${JSON.stringify(mine)}\n`);
    expect(readFileSync(paths.approvalDecisionClaim(SESSION, 'apr_3'), 'utf8')).toBe(`${JSON.stringify(mine, null, 2)}\n`);
    expect(readdirSync(claimsDir).sort()).toEqual(['apr_1.json', 'apr_2.json', 'apr_3.json']);
  });

  it('reads the usage ledger, todo lists and scratchbooks where the tools write them, and writes them readably', async () => {
    const record = usageRecord('dev', 5);
    // One JSON line per model call, as Legion has always written the ledger.
    writeFileSync(paths.usageFile(SESSION), `${JSON.stringify(record)}\n`);
    const files = backend();
    expect(await files.usage.read(SESSION)).toEqual([record]);
    const added = usageRecord('qa', 6);
    await files.usage.append(SESSION, added);
    expect(readFileSync(paths.usageFile(SESSION), 'utf8')).toBe(`${JSON.stringify(record)}\n${JSON.stringify(added)}\n`);

    const todoPath = join(paths.sessionDir(SESSION), 'todos', 'dev.json');
    writeTodos(todoPath, 'dev', [{ id: '1', text: 'write tests', status: 'in_progress' }]);
    expect((await files.agentState.get({ sessionId: SESSION, kind: 'todos', agentId: 'dev' }, TodoFileSchema))?.items).toEqual(
      readTodos(todoPath),
    );
    await files.agentState.put(
      { sessionId: SESSION, kind: 'todos', agentId: 'qa' },
      { version: 1, agentId: 'qa', updatedAt: '2026-01-01T00:00:00.000Z', items: [{ id: 'a', text: 'review', status: 'pending' }] },
    );
    expect(readTodos(join(paths.sessionDir(SESSION), 'todos', 'qa.json'))).toEqual([{ id: 'a', text: 'review', status: 'pending' }]);

    const bookPath = join(paths.sessionDir(SESSION), 'scratchbook', 'dev.json');
    writeScratchbook(bookPath, {
      version: 1,
      agentId: 'dev',
      nextId: 2,
      notes: [{ id: 'n1', text: 'port 8080', pinned: true, status: 'open', createdAt: 'x', updatedAt: 'x' }],
    });
    expect(await files.agentState.get({ sessionId: SESSION, kind: 'scratchbook', agentId: 'dev' }, ScratchbookFileSchema)).toEqual(
      readScratchbook(bookPath, 'dev'),
    );
    expect(await files.agentState.list(SESSION, 'todos')).toEqual(['dev', 'qa']);
  });

  it('reads the version 1 approvals fixture migrated, changing nothing', async () => {
    copyFileSync(APPROVALS_V1, paths.approvalsFile(SESSION));
    const warnings: StorageWarning[] = [];
    const files = new FileSessionBackend({ root, onWarning: (warning) => warnings.push(warning) });
    closers.push(() => files.close());
    const stored = readFileSync(APPROVALS_V1, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; chain?: string[]; version: number });
    const records = await files.approvals.read(SESSION);
    expect(records).toHaveLength(stored.length);
    records.forEach((record, index) => {
      const { chain, version, ...fields } = stored[index]!;
      if (record.kind === 'decision') return expect(record).toEqual(stored[index]);
      // A version 1 request without links: each waiting participant keeps its place, in the requester's conversation.
      expect(record).toEqual({
        ...fields,
        version: 2,
        frames: chain!.map((participantId) => ({ participantId, conversationId: record.conversationId })),
      });
      expect(version).toBe(1);
    });
    expect(warnings).toEqual([]);
    expect(readFileSync(paths.approvalsFile(SESSION))).toEqual(readFileSync(APPROVALS_V1));
  });

  it('reads the version 1 questions fixture, an outcome only claimed included, skipping a line it cannot read, changing nothing', async () => {
    copyFileSync(QUESTIONS_V1, paths.questionsFile(SESSION));
    // The claim of an answer whose process died before logging it.
    mkdirSync(dirname(paths.questionOutcomeClaim(SESSION, 'q_222222222222')), { recursive: true });
    writeFileSync(
      paths.questionOutcomeClaim(SESSION, 'q_222222222222'),
      JSON.stringify({
        kind: 'answer',
        version: 1,
        questionId: 'q_222222222222',
        at: '2026-11-26T03:02:09.000Z',
        text: 'yes',
        answeredBy: 'user',
        medium: 'terminal',
      }),
    );
    const before = snapshot(paths.sessionDir(SESSION));
    const warnings: string[] = [];
    const files = new FileSessionBackend({ root, onWarning: (warning) => warnings.push(`${warning.offset}: ${warning.problem}`) });
    closers.push(() => files.close());
    const records = await files.questions.read(SESSION);
    expect(records.map((record) => `${record.kind} ${record.kind === 'question' ? record.id : record.questionId}`)).toEqual([
      'question q_0a1b2c3d4e5f',
      'answer q_0a1b2c3d4e5f',
      'question q_111111111111',
      'withdrawn q_111111111111',
      'question q_222222222222',
      'question q_333333333333',
      'answer q_222222222222',
    ]);
    expect(records[0]).toMatchObject({ frames: [{ participantId: 'user' }, { participantId: 'coordinator', toolUseId: 'toolu_ask' }] });
    expect(warnings).toEqual([expect.stringContaining('skipped an unreadable question record')]);
    // A claim taken is an answer: a second one is refused with it.
    expect(
      await files.questions.claim(SESSION, [
        {
          kind: 'answer',
          version: 1,
          questionId: 'q_222222222222',
          at: '2026-11-26T03:04:00.000Z',
          text: 'no',
          answeredBy: 'user',
        },
      ]),
    ).toMatchObject({ ok: false, taken: [{ text: 'yes' }] });
    expect(snapshot(paths.sessionDir(SESSION))).toEqual(before);
  });

  it('reads the version 1 workspace fixture as the stores that opened it before do, changing nothing', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'legion-workspace-v1-'));
    closers.push(() => rmSync(workspace, { recursive: true, force: true }));
    cpSync(WORKSPACE_V1, workspace, { recursive: true });
    const before = snapshot(join(workspace, '.legion'));
    const warnings: StorageWarning[] = [];
    const files = new FileSessionBackend({ root: workspace, onWarning: (warning) => warnings.push(warning) });
    closers.push(() => files.close());
    const fixturePaths = new WorkspacePaths(workspace);
    const listing = await files.sessions.list();
    expect(listing.warnings).toEqual([]);
    const ids = listing.sessions.map((session) => session.id).sort();
    expect(ids).toEqual(['20261125-192632-0b3898', '20261125-192632-9074e5']);
    for (const sessionId of ids) {
      const conversations = await files.conversations.list(sessionId);
      expect(conversations).toEqual(
        readdirSync(fixturePaths.conversationsDir(sessionId))
          .map((name) => name.replace(/\.jsonl$/, ''))
          .sort(),
      );
      for (const conversationId of conversations) {
        const old = new FileConversationLog(
          fixturePaths.conversationFile(sessionId, conversationId),
          fixturePaths.conversationLock(sessionId, conversationId),
        );
        const expected = old.context();
        old.close();
        expect(expected.length).toBeGreaterThan(0);
        expect((await files.conversations.context({ sessionId, conversationId })).messages).toEqual(expected);
      }
      // Version 1 requests come back migrated: their frames from the links written before them.
      const records = await files.approvals.read(sessionId);
      expect(
        records.map((record) =>
          record.kind === 'request'
            ? `${record.id} v${record.version}: ${record.frames.map((frame) => `${frame.participantId}@${frame.conversationId}${frame.toolUseId ? `/${frame.toolUseId}` : ''}`).join(' ')}`
            : `${record.requestId} ${record.decision}`,
        ),
      ).toEqual(FIXTURE_APPROVALS[sessionId]);
      const usageLines = readFileSync(fixturePaths.usageFile(sessionId), 'utf8').trim().split('\n');
      expect(await files.usage.read(sessionId)).toEqual(usageLines.map((line) => JSON.parse(line)));
    }
    expect(records9074e5Decided(await files.approvals.read('20261125-192632-9074e5'))).toBe(true);
    expect(warnings).toEqual([]);
    await files.close();
    expect(snapshot(join(workspace, '.legion'))).toEqual(before);
  });

  it('reads a workspace a real Legion run wrote: its session, conversations and usage', async () => {
    const test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator')],
      scripts: { coordinator: [{ text: 'Done.', usage: { inputTokens: 12, outputTokens: 3 } }] },
    });
    closers.push(() => test.cleanup());
    const session = await test.legion.sessions.create({ title: 'real run' });
    expect(await test.legion.send(session, 'Do it')).toMatchObject({ status: 'success', reply: 'Done.' });
    const files = new FileSessionBackend({ root: test.root });
    closers.push(() => files.close());
    expect((await files.sessions.latest())?.id).toBe(session.id);
    expect(await files.sessions.get(session.id)).toEqual(session.info);
    expect(await files.conversations.list(session.id)).toEqual(['user__coordinator']);
    const context = await files.conversations.context({ sessionId: session.id, conversationId: 'user__coordinator' });
    expect(context.messages).toEqual(await session.conversation({ initiator: 'user', responder: 'coordinator' }).history());
    expect((await files.usage.read(session.id)).map((record) => record.usage.inputTokens)).toEqual([12]);
  });
});
