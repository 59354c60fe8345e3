import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  agentParticipant,
  createTestLegion,
  mockParticipant,
  userParticipant,
  type ScriptEntry,
  type TestLegion,
} from '@legion-collective/core/testing';
import { honoPath, ROUTES } from './route-table.js';
import { ApiClient, type EventStream } from './server-test-support.js';
import { startServer, type RunningServer } from './start-server.js';
import type { ApprovalListResponse } from './wire/approvals.js';
import type { MessagesPageResponse } from './wire/messages.js';
import type { ParticipantListResponse } from './wire/participants.js';
import type { QuestionListResponse } from './wire/questions.js';
import type { SessionDetailResponse, SessionListResponse } from './wire/sessions.js';

const usage = { inputTokens: 100, outputTokens: 20 };

describe('legion serve API, on a real server over a real Legion', () => {
  let test: TestLegion;
  let server: RunningServer;
  let api: ApiClient;
  let stream: EventStream | undefined;

  /** A workspace whose entry agent `lead` answers from this script, and a server over it. */
  async function open(lead: ScriptEntry[] = []): Promise<void> {
    test = createTestLegion({
      participants: [
        userParticipant(),
        agentParticipant('lead', { useFor: 'leading' }),
        mockParticipant('echo', [{ trigger: '*', response: 'pong' }]),
      ],
      entryAgent: 'lead',
      scripts: { lead },
    });
    server = await startServer({ legion: test.legion, heartbeatMs: 100, followPollMs: 50 });
    api = new ApiClient(server.port, server.token);
  }
  afterEach(async () => {
    stream?.close();
    stream = undefined;
    await server.close();
    await test.cleanup();
    expect(api.mismatches).toEqual([]);
  });

  async function newSession(): Promise<string> {
    const created = await api.post('/api/sessions', {});
    expect(created.status).toBe(201);
    return (created.json as { id: string }).id;
  }

  /**
   * A lead whose one model response writes two files (each `[path, content]`), sent a message in a
   * new session whose events `stream` follows; resolves with the session id once both approval
   * requests are out.
   */
  async function twoPendingWrites(...files: Array<[string, string]>): Promise<{ id: string; events: EventStream }> {
    await open([{ toolCalls: files.map(([path, content]) => ({ name: 'file_write', input: { path, content } })) }, { text: 'done' }]);
    const id = await newSession();
    const events = api.events({ session: id });
    stream = events;
    await events.opened;
    await api.post(`/api/sessions/${id}/messages`, { text: 'write two files' });
    await events.until(
      (s) => s.legion().filter((event) => event.type === 'approval:requested').length === 2 || undefined,
      'two approval requests',
    );
    return { id, events };
  }

  /** Waits for the end of a turn of `participant` in the stream. */
  function turnEnd(events: EventStream, participant: string, count = 1): Promise<unknown> {
    return events.until(
      (s) => s.legion().filter((event) => event.type === 'turn:end' && event.participantId === participant).length >= count || undefined,
      `${count} turn:end of ${participant}`,
    );
  }

  it('documents every route it serves in /api/openapi.json, and serves every documented route', async () => {
    await open();
    const document = (await api.get('/api/openapi.json')).json as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toBe('3.1.0');
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${honoPath(path)}`),
    );
    const served = server.routes.map((route) => `${route.method} ${route.path}`);
    expect([...new Set(served)].sort()).toEqual([...documented].sort());
    expect(documented).toHaveLength(Object.keys(ROUTES).length);
  });

  it('tells the workspace, a redacted config, the participants and the tools', async () => {
    await open();
    const workspace = await api.get('/api/workspace');
    expect(workspace.json).toMatchObject({ root: test.root, entryAgent: 'lead', user: 'user', sessionId: null });
    expect((await api.get('/api/config')).status).toBe(200);
    const participants = (await api.get('/api/participants')).json as ParticipantListResponse;
    expect(participants.participants.map((participant) => participant.id).sort()).toEqual(['echo', 'lead', 'user']);
    const lead = participants.participants.find((participant) => participant.id === 'lead')!;
    expect(lead).toMatchObject({
      type: 'agent',
      useFor: 'leading',
      model: { provider: 'scripted', model: 'lead' },
      entry: true,
      state: 'idle',
    });
    expect(lead.tools).toContain('communicate');
    expect(lead.delegatesTo.sort()).toEqual(['echo', 'user']);
    const tools = await api.get('/api/tools?agent=lead');
    expect((tools.json as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toContain('file_write');
    expect((await api.get('/api/tools?agent=nobody')).status).toBe(404);
    expect((await api.get('/api/tools?agent=echo')).json).toMatchObject({ error: { code: 'not_an_agent' } });
  });

  it('creates a session, runs a turn sent through the API, and pages, counts and searches its messages', async () => {
    await open();
    const id = await newSession();
    stream = api.events({ session: id });
    await stream.opened;
    const sent = await api.post(`/api/sessions/${id}/messages`, { text: 'hello there', to: 'echo' });
    expect(sent.status).toBe(202);
    expect(sent.json).toEqual({ accepted: true, conversationId: 'user__echo' });
    await turnEnd(stream, 'echo');
    const detail = (await api.get(`/api/sessions/${id}`)).json as SessionDetailResponse;
    expect(detail.conversations).toEqual([
      expect.objectContaining({ id: 'user__echo', initiator: 'user', responder: 'echo', messages: 2, busy: false }),
    ]);
    expect(detail.session).toMatchObject({ id, conversations: 1, messages: 2 });
    const all = (await api.get(`/api/sessions/${id}/conversations/user__echo/messages`)).json as MessagesPageResponse;
    expect(all.messages.map((message) => [message.author, message.content])).toEqual([
      ['user', [{ type: 'text', text: 'hello there' }]],
      ['echo', [{ type: 'text', text: 'pong' }]],
    ]);
    expect(all.more).toBe(false);
    const newest = (await api.get(`/api/sessions/${id}/conversations/user__echo/messages?limit=1`)).json as MessagesPageResponse;
    expect(newest).toMatchObject({ messages: [{ author: 'echo' }], more: true });
    const older = (await api.get(`/api/sessions/${id}/conversations/user__echo/messages?limit=1&before=${newest.messages[0]!.id}`))
      .json as MessagesPageResponse;
    expect(older).toMatchObject({ messages: [{ author: 'user' }], more: false });
    expect((await api.get(`/api/sessions/${id}/conversations/user__nobody/messages`)).status).toBe(404);
    expect((await api.get(`/api/sessions/${id}/conversations/user__echo/messages?limit=0`)).status).toBe(400);
    const search = await api.get(`/api/search?q=HELLO`);
    expect(search.json).toMatchObject({
      hits: [{ sessionId: id, conversationId: 'user__echo', initiator: 'user', responder: 'echo', author: 'user', snippet: 'hello there' }],
    });
    const listed = await api.get('/api/sessions?q=' + id.slice(0, 6));
    expect(listed.json).toMatchObject({ sessions: [{ id, messages: 2 }] });
    expect((await api.get('/api/sessions/no-such-session')).status).toBe(404);
    // A session with no refused write has an empty conflicts log; an id that is no session's, or
    // climbs out of the sessions folder, reads nothing.
    expect((await api.get(`/api/sessions/${id}/conflicts`)).json).toEqual({ conflicts: [] });
    expect((await api.get('/api/sessions/no-such-session/conflicts')).status).toBe(404);
    // Every session route: a name no session can have is the caller's mistake (400, saying what a
    // session id is), never a server failure (it was a 500 "please report it").
    for (const path of [
      '/api/sessions/..%2F..%2Fetc',
      '/api/sessions/..%2F..%2Fetc/conflicts',
      '/api/sessions/..%2Fx/usage',
      '/api/sessions/a%20b/approvals',
      '/api/questions?session=..%2Fx',
      '/api/search?q=hello&session=..%2Fx',
    ]) {
      const refused = await api.get(path);
      expect(refused.status, path).toBe(400);
      expect(JSON.stringify(refused.json), path).toContain('is not a session id');
    }
    expect((await api.get(`/api/sessions/${id}/conflicts`, { token: null })).status).toBe(401);
    expect((await api.get('/api/workspace')).json).toMatchObject({ sessionId: id });
  });

  it("lists and searches sessions from core's index: a log replaced behind its back is not read", async () => {
    await open();
    const id = await newSession();
    stream = api.events({ session: id });
    await stream.opened;
    await api.post(`/api/sessions/${id}/messages`, { text: 'hello there', to: 'echo' });
    await turnEnd(stream, 'echo');
    expect((await api.get('/api/sessions')).json).toMatchObject({ sessions: [{ id, conversations: 1, messages: 2 }] });
    // The log, replaced by one of the same size holding one message with another word: read, it would
    // count one message and find "zebra"; the index, which checks a log's size and reads none, does neither.
    const log = join(test.root, '.legion', 'sessions', id, 'conversations', 'user__echo.jsonl');
    const size = statSync(log).size;
    const line = (padding: string) =>
      `${JSON.stringify({ kind: 'message', id: 'm-zebra', role: 'user', content: [{ type: 'text', text: `zebra${padding}` }], at: new Date().toISOString() })}\n`;
    writeFileSync(log, line(' '.repeat(size - line('').length)));
    expect(statSync(log).size).toBe(size);
    expect((await api.get('/api/sessions')).json).toMatchObject({ sessions: [{ id, conversations: 1, messages: 2 }] });
    expect((await api.get(`/api/sessions/${id}`)).json).toMatchObject({ conversations: [{ id: 'user__echo', messages: 2 }] });
    expect((await api.get('/api/search?q=zebra')).json).toEqual({ hits: [] });
  });

  it('pages the sessions: every session once across the pages, in a stable order, including those of another process', async () => {
    await open();
    stream = api.events();
    await stream.opened;
    const ours: string[] = [];
    for (let index = 0; index < 7; index++) ours.push(await newSession());
    // Another process (a terminal) creates sessions, one at a time: each is listed once the workspace follower found it.
    const other = test.reopen();
    const theirs: string[] = [];
    try {
      for (let index = 0; index < 3; index++) {
        const id = (await other.sessions.create()).id;
        theirs.push(id);
        await stream.until(
          (s) => s.messages.some((message) => message.event === 'session' && (message.data as { sessionId: string }).sessionId === id),
          "the other process's session announced",
        );
      }
    } finally {
      await other.close();
    }
    const everyId = [...ours, ...theirs];
    const pages: SessionListResponse[] = [];
    let after: string | undefined;
    do {
      const response = await api.get(`/api/sessions?limit=3${after !== undefined ? `&after=${encodeURIComponent(after)}` : ''}`);
      expect(response.status).toBe(200);
      const page = response.json as SessionListResponse;
      expect(page.sessions.length).toBeLessThanOrEqual(3);
      pages.push(page);
      after = page.next;
      // A session listed already becomes the most recent meanwhile: it moves before the cursor, and is not listed again.
      if (pages.length === 2)
        expect((await api.post(`/api/sessions/${page.sessions[0]!.id}/messages`, { text: 'hi', to: 'echo' })).status).toBe(202);
    } while (after !== undefined && pages.length < 10);
    const listed = pages.flatMap((page) => page.sessions.map((session) => session.id));
    expect(pages.length).toBe(4);
    expect([...listed].sort()).toEqual([...everyId].sort());
    expect(new Set(listed).size).toBe(listed.length);
    // Most recently active first (ties by id): the order of the pages is the order of one listing made before.
    const orderKeys = pages.flatMap((page) => page.sessions.map((session) => `${session.updatedAt} ${session.id}`));
    expect(orderKeys.slice(0, 6)).toEqual([...orderKeys.slice(0, 6)].sort().reverse());
    expect((await api.get('/api/sessions?after=not-a-cursor')).status).toBe(400);
    expect((await api.get('/api/sessions?limit=0')).status).toBe(400);
  });

  it('leaves out of a page a session another process removed after the catalog read it', async () => {
    await open();
    // Two sessions idle for days (the workspace follower leaves them unopened), as the engine stores them.
    const [kept, removed] = ['20260101-090000-00000a', '20260101-080000-00000b'];
    for (const id of [kept, removed]) {
      const at = `2026-01-01T0${id === kept ? 9 : 8}:00:00.000Z`;
      mkdirSync(join(test.root, '.legion', 'sessions', id, 'conversations'), { recursive: true });
      writeFileSync(
        join(test.root, '.legion', 'sessions', id, 'session.json'),
        JSON.stringify({ version: 1, id, createdAt: at, lastActiveAt: at }),
      );
    }
    // Another server over the workspace: its catalog reads both, and it opens neither.
    const fresh = test.reopen();
    await server.close();
    server = await startServer({ legion: fresh, heartbeatMs: 100, followPollMs: 50 });
    api = new ApiClient(server.port, server.token);
    try {
      await fresh.sessions.find('', { limit: 0 });
      await test.legion.sessions.remove(removed);
      const page = await api.get('/api/sessions');
      expect(page.status).toBe(200);
      expect((page.json as SessionListResponse).sessions.map((session) => session.id)).toEqual([kept]);
    } finally {
      await server.close();
      await fresh.close();
    }
  });

  it('reports usage per participant, and refuses a second message into a busy conversation', async () => {
    // The first turn answers once the second message was refused: it is busy until then, however slow the machine.
    let refused!: () => void;
    const secondRefused = new Promise<void>((resolve) => (refused = resolve));
    let timer: NodeJS.Timeout | undefined;
    // At most 10 s, so that a second message wrongly let in fails the assertions below instead of hanging the turn.
    const atMost10s = Promise.race([secondRefused, new Promise<void>((resolve) => (timer = setTimeout(resolve, 10_000)))]).finally(() =>
      clearTimeout(timer),
    );
    await open([async () => (await atMost10s, { text: 'first', usage }), { text: 'second', usage }]);
    const id = await newSession();
    stream = api.events({ session: id });
    await stream.opened;
    expect((await api.post(`/api/sessions/${id}/messages`, { text: 'one' })).status).toBe(202);
    const busy = await api.post(`/api/sessions/${id}/messages`, { text: 'two' });
    refused();
    expect(busy.status).toBe(409);
    expect(busy.json).toMatchObject({ error: { code: 'conversation_busy' } });
    await turnEnd(stream, 'lead');
    expect((await api.post(`/api/sessions/${id}/messages`, { text: 'two' })).status).toBe(202);
    await turnEnd(stream, 'lead', 2);
    const report = await api.get(`/api/sessions/${id}/usage`);
    expect(report.json).toMatchObject({ total: { calls: 2, inputTokens: 200, outputTokens: 40 } });
    expect((report.json as { participants: unknown[] }).participants).toContainEqual(
      expect.objectContaining({ id: 'lead', own: expect.objectContaining({ calls: 2 }) }),
    );
    test.assertScriptsDone();
  });

  it('reads usage once per usage:report, for every client that asks, and again after the next one', async () => {
    await open([
      { text: 'first', usage },
      { text: 'second', usage: { inputTokens: 7, outputTokens: 3 } },
    ]);
    const id = await newSession();
    stream = api.events({ session: id });
    await stream.opened;
    expect((await api.post(`/api/sessions/${id}/messages`, { text: 'one' })).status).toBe(202);
    await turnEnd(stream, 'lead');
    expect((await api.get(`/api/sessions/${id}/usage`)).json).toMatchObject({ total: { calls: 1, inputTokens: 100 } });
    // Emptied behind the server's back, with no usage:report: the summary read once still answers, however many ask.
    writeFileSync(test.legion.paths.usageFile(id), '');
    const reports = await Promise.all(Array.from({ length: 5 }, () => api.get(`/api/sessions/${id}/usage`)));
    for (const report of reports) expect(report.json).toMatchObject({ total: { calls: 1, inputTokens: 100 } });
    // The next model call's usage:report: read again, so the log as it is now (only that call).
    expect((await api.post(`/api/sessions/${id}/messages`, { text: 'two' })).status).toBe(202);
    await turnEnd(stream, 'lead', 2);
    expect((await api.get(`/api/sessions/${id}/usage`)).json).toMatchObject({ total: { calls: 1, inputTokens: 7, outputTokens: 3 } });
    test.assertScriptsDone();
  });

  it('stops a running turn on cancel', async () => {
    await open([{ text: 'never', delayMs: 20_000 }]);
    const id = await newSession();
    stream = api.events({ session: id });
    await stream.opened;
    await api.post(`/api/sessions/${id}/messages`, { text: 'long task' });
    await stream.until(
      (s) => s.legion().some((event) => event.type === 'turn:start' && event.participantId === 'lead'),
      'the turn to start',
    );
    const cancelled = await api.post(`/api/sessions/${id}/cancel`, {});
    expect(cancelled.json).toEqual({ cancelled: 1 });
    const end = (await stream.until((s) => s.legion().find((event) => event.type === 'turn:end'), 'turn:end')) as unknown as {
      status: string;
    };
    expect(end.status).toBe('error');
  });

  it('Stop while a question waits on the user ends the turn as cancelled, not failed, and withdraws the question', async () => {
    await open([{ toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] }]);
    const id = await newSession();
    stream = api.events({ session: id });
    await stream.opened;
    await api.post(`/api/sessions/${id}/messages`, { text: 'set up the server' });
    await stream.until((s) => s.legion().some((event) => event.type === 'question:asked'), 'question:asked');
    expect((await api.post(`/api/sessions/${id}/cancel`, {})).json).toEqual({ cancelled: 1 });
    await turnEnd(stream, 'lead');
    // The model and every surface read a cancel: the ending closing the lead's turn says so.
    const log = (await api.get(`/api/sessions/${id}/conversations/user__lead/messages`)).json as MessagesPageResponse;
    expect(log.messages.at(-1)).toMatchObject({ role: 'assistant', ending: { status: 'cancelled', code: 'cancelled' } });
    expect((await api.get(`/api/questions?session=${id}`)).json).toEqual({ questions: [] });
  });

  it('Stop while approvals wait on the user ends the turn as cancelled, and the approvals with it', async () => {
    const { id, events } = await twoPendingWrites(['a.txt', 'one'], ['b.txt', 'two']);
    expect((await api.post(`/api/sessions/${id}/cancel`, {})).json).toEqual({ cancelled: 1 });
    await turnEnd(events, 'lead');
    const log = (await api.get(`/api/sessions/${id}/conversations/user__lead/messages`)).json as MessagesPageResponse;
    expect(log.messages.at(-1)).toMatchObject({ role: 'assistant', ending: { status: 'cancelled', code: 'cancelled' } });
    const approvals = (await api.get(`/api/sessions/${id}/approvals?status=all`)).json as ApprovalListResponse;
    expect(approvals.approvals.map((approval) => approval.status)).toEqual(['rejected', 'rejected']);
    // Nobody rejected them: the view and the event say the turn that asked ended.
    expect(approvals.approvals.map((approval) => approval.cancelled)).toEqual([true, true]);
    const decided = await events.until((s) => {
      const found = s.legion().filter((event) => event.type === 'approval:decided');
      return found.length === 2 ? found : undefined;
    }, 'two approval:decided');
    expect(decided.map((event) => event['cancelled'])).toEqual([true, true]);
    expect(existsSync(join(test.root, 'a.txt'))).toBe(false);
  });

  it("answers an agent's question asked of the user through the web surface, once", async () => {
    await open([{ toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] }, { text: 'Using 8080.' }]);
    const id = await newSession();
    stream = api.events({ session: id });
    await stream.opened;
    await api.post(`/api/sessions/${id}/messages`, { text: 'set up the server' });
    await stream.until((s) => s.legion().some((event) => event.type === 'question:asked'), 'question:asked');
    const listed = (await api.get(`/api/questions?session=${id}`)).json as QuestionListResponse;
    expect(listed.questions).toEqual([
      expect.objectContaining({ sessionId: id, from: 'lead', user: 'user', text: 'Which port?', chain: ['user', 'lead'] }),
    ]);
    const question = listed.questions[0]!;
    expect((await api.post(`/api/questions/${question.id}/answer`, { text: '8080' })).json).toEqual({ status: 'answered' });
    const end =
      (await turnEnd(stream, 'lead')) && stream.legion().find((event) => event.type === 'turn:end' && event.participantId === 'lead');
    expect(end).toMatchObject({ status: 'success', reply: 'Using 8080.' });
    // The question's wait ended with it: nobody is left "thinking" once the turn is over.
    const states = async (): Promise<Record<string, string>> =>
      Object.fromEntries(
        ((await api.get('/api/participants')).json as { participants: Array<{ id: string; state: string }> }).participants.map(
          (participant) => [participant.id, participant.state],
        ),
      );
    await expect.poll(states).toMatchObject({ lead: 'idle', user: 'idle' });
    const again = await api.post(`/api/questions/${question.id}/answer`, { text: '9090' });
    expect([404, 409]).toContain(again.status);
    expect((await api.get('/api/questions')).json).toEqual({ questions: [] });
    const log = (await api.get(`/api/sessions/${id}/conversations/lead__user/messages`)).json as MessagesPageResponse;
    expect(log.messages.at(-1)).toMatchObject({ author: 'user', medium: 'web', content: [{ type: 'text', text: '8080' }] });
    test.assertScriptsDone();
  });

  it("gives a pending file_write's file as it is, and not once it is decided or where it may not read", async () => {
    await open([
      {
        toolCalls: [
          { name: 'file_write', input: { path: 'notes.md', content: 'one\nthree\n' } },
          { name: 'file_write', input: { path: '../outside.md', content: 'x' } },
        ],
      },
      { text: 'done' },
    ]);
    writeFileSync(join(test.root, 'notes.md'), 'one\ntwo\n');
    const id = await newSession();
    stream = api.events({ session: id });
    await stream.opened;
    await api.post(`/api/sessions/${id}/messages`, { text: 'rewrite the notes' });
    await stream.until((s) => s.legion().filter((event) => event.type === 'approval:requested').length === 2 || undefined, 'two approvals');
    const pending = ((await api.get(`/api/sessions/${id}/approvals`)).json as ApprovalListResponse).approvals;
    const byPath = (path: string) => pending.find((approval) => (approval.input as { path: string }).path === path)!;
    const change = async (approvalId: string) => (await api.get(`/api/sessions/${id}/approvals/${approvalId}/file-change`)).json;
    expect(await change(byPath('notes.md').id)).toEqual({
      fileChange: { status: 'shown', path: 'notes.md', before: 'one\ntwo\n', after: 'one\nthree\n' },
    });
    expect(await change(byPath('../outside.md').id)).toEqual({
      fileChange: { status: 'not_shown', path: '../outside.md', reason: expect.stringContaining('outside the workspace') },
    });
    expect((await api.get(`/api/sessions/${id}/approvals/nope/file-change`)).status).toBe(404);
    await api.post(`/api/sessions/${id}/approvals`, {
      answers: pending.map((approval) => ({ id: approval.id, decision: 'reject' })),
    });
    await turnEnd(stream, 'lead');
    expect(await change(byPath('notes.md').id)).toEqual({ fileChange: null });
  });

  it('lists pending approvals with their chain, approves one and rejects the other with a reason', async () => {
    const { id, events } = await twoPendingWrites(['yes.txt', 'yes'], ['no.txt', 'no']);
    await events.until(
      (s) => s.messages.some((message) => message.event === 'state' && (message.data as { state: string }).state === 'approval'),
      'the approval state',
    );
    const pending = (await api.get(`/api/sessions/${id}/approvals`)).json as ApprovalListResponse;
    expect(pending.approvals).toHaveLength(2);
    expect(pending.approvals[0]).toMatchObject({
      sessionId: id,
      requester: 'lead',
      approver: 'user',
      tool: 'file_write',
      status: 'pending',
      chain: ['user', 'lead'],
    });
    const [yes, no] = pending.approvals.sort((a, b) => JSON.stringify(a.input).localeCompare(JSON.stringify(b.input))).reverse();
    const answered = await api.post(`/api/sessions/${id}/approvals`, {
      answers: [
        { id: yes!.id, decision: 'approve' },
        { id: no!.id, decision: 'reject', reason: 'not that one' },
      ],
    });
    expect(answered.json).toEqual({ status: 'answered' });
    await turnEnd(events, 'lead');
    expect(existsSync(join(test.root, 'yes.txt'))).toBe(true);
    expect(existsSync(join(test.root, 'no.txt'))).toBe(false);
    const all = (await api.get(`/api/sessions/${id}/approvals?status=all`)).json as ApprovalListResponse;
    expect(all.approvals.map((approval) => [approval.status, approval.decisionMedium, approval.decisionReason])).toEqual(
      expect.arrayContaining([
        ['approved', 'web', undefined],
        ['rejected', 'web', 'not that one'],
      ]),
    );
    const late = await api.post(`/api/sessions/${id}/approvals`, { answers: [{ id: yes!.id, decision: 'reject' }] });
    expect(late.status).toBe(409);
    expect(late.json).toMatchObject({ error: { code: 'already_answered' } });
    expect((await api.post(`/api/sessions/${id}/approvals`, { answers: [{ id: 'nope', decision: 'approve' }] })).status).toBe(404);
    test.assertScriptsDone();
  });

  it('takes the approvals of one model response one by one: the batch is decided once each has an answer', async () => {
    const { id, events } = await twoPendingWrites(['first.txt', '1'], ['second.txt', '2']);
    const [first, second] = ((await api.get(`/api/sessions/${id}/approvals`)).json as ApprovalListResponse).approvals;
    expect((await api.post(`/api/sessions/${id}/approvals`, { answers: [{ id: first!.id, decision: 'approve' }] })).json).toEqual({
      status: 'answered',
    });
    // The other one is still to be answered; the first is not offered again.
    expect(
      ((await api.get(`/api/sessions/${id}/approvals`)).json as ApprovalListResponse).approvals.map((approval) => approval.id),
    ).toEqual([second!.id]);
    expect((await api.post(`/api/sessions/${id}/approvals`, { answers: [{ id: first!.id, decision: 'reject' }] })).status).toBe(409);
    expect(events.legion().some((event) => event.type === 'approval:decided')).toBe(false);
    expect(
      (await api.post(`/api/sessions/${id}/approvals`, { answers: [{ id: second!.id, decision: 'reject', reason: 'one is enough' }] }))
        .json,
    ).toEqual({ status: 'answered' });
    await turnEnd(events, 'lead');
    const decided = ((await api.get(`/api/sessions/${id}/approvals?status=all`)).json as ApprovalListResponse).approvals;
    expect(decided.map((approval) => [approval.id, approval.status])).toEqual(
      expect.arrayContaining([
        [first!.id, 'approved'],
        [second!.id, 'rejected'],
      ]),
    );
    test.assertScriptsDone();
  });

  it('refuses bad input with a message naming the field and the fix', async () => {
    await open();
    const id = await newSession();
    const empty = await api.post(`/api/sessions/${id}/messages`, { text: '' });
    expect(empty.status).toBe(400);
    expect((empty.json as { error: { message: string } }).error.message).toMatch(/text: .*openapi\.json/);
    const notJson = await api.request('POST', `/api/sessions/${id}/messages`, {
      rawBody: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    expect((await api.post(`/api/sessions/${id}/messages`, { text: 'hi', to: 'ghost' })).status).toBe(404);
    expect((await api.post(`/api/sessions/${id}/messages`, { text: 'hi', from: 'lead' })).status).toBe(400);
    expect((await api.post(`/api/sessions/${id}/messages`, { text: 'hi', to: 'echo', conversation: 'a__b' })).status).toBe(400);
    expect((await api.get('/api/nothing-here')).json).toMatchObject({ error: { code: 'not_found' } });
    expect((await api.get('/api/search')).status).toBe(400);
  });
});
