import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '../kernel/message.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion, writeNoteTool } from '../testing/index.js';
import type { ApprovalView } from '../store/records/approval-records.js';

const lastContent = (request: { messages: readonly Message[] }) => request.messages.at(-1)!.content;
const resultText = (request: { messages: readonly Message[] }, index = 0) => {
  const block = lastContent(request)[index];
  if (block?.type !== 'tool_result') throw new Error(`expected a tool_result, got ${JSON.stringify(block)}`);
  return block;
};
const approvalIds = (text: string) => [...text.matchAll(/apr_[\w-]+/g)].map((match) => match[0]);

describe('approvals up the communication chain', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it("a coordinator with authority answers its developer's approval; the paused turn resumes and its reply comes back", async () => {
    let approvalId = '';
    test = createTestLegion({
      participants: [
        userParticipant(),
        { ...agentParticipant('coordinator'), approvalAuthority: [{ requester: 'developer', tools: ['write_*'] }] } as never,
        agentParticipant('developer', { delegation: 'none' }),
      ],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ id: 'c1', name: 'communicate', input: { to: 'developer', message: 'write the note' } }] },
          (request) => {
            const result = resultText(request);
            expect(result.isError).toBeUndefined();
            expect(result.content).toMatch(/^approval_required: the delegate's turn is paused/);
            expect(result.content).toContain('developer wants to run write_note {"path":"note.txt","text":"hello"}');
            approvalId = approvalIds(result.content)[0]!;
            return {
              toolCalls: [{ id: 'c2', name: 'approval_response', input: { decisions: [{ id: approvalId, decision: 'approve' }] } }],
            };
          },
          {
            expect: (request) => expect(resultText(request).content).toBe('coordinator__developer replied: note written'),
            text: 'The note is written.',
          },
        ],
        developer: [
          { toolCalls: [{ id: 'd1', name: 'write_note', input: { path: 'note.txt', text: 'hello' } }] },
          {
            expect: (request) => expect(resultText(request)).toMatchObject({ toolUseId: 'd1', content: 'wrote note.txt' }),
            text: 'note written',
          },
        ],
      },
    });
    test.legion.tools.register(writeNoteTool(test.root));
    const session = await test.legion.sessions.create();
    expect(existsSync(join(test.root, 'note.txt'))).toBe(false);
    const result = await test.legion.send(session, 'please');
    expect(result).toMatchObject({ status: 'success', reply: 'The note is written.' });
    expect(readFileSync(join(test.root, 'note.txt'), 'utf8')).toBe('hello');
    test.assertScriptsDone();
    expect(await session.approvals.list()).toMatchObject([
      { id: approvalId, requester: 'developer', approver: 'coordinator', tool: 'write_note', status: 'approved', decidedBy: 'coordinator' },
    ]);
  });

  it('without authority in between, the request reaches the user through the UI callback; a rejection reason reaches the model', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator'), agentParticipant('developer', { delegation: 'none' })],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'developer', message: 'write it' } }] },
          { expect: (request) => expect(resultText(request).content).toBe('could not write: the user said not now'), text: 'ok' },
        ],
        developer: [
          {
            toolCalls: [
              { id: 'd1', name: 'write_note', input: { path: 'x.txt', text: 'x' } },
              { id: 'd2', name: 'list_participants', input: {} },
            ],
          },
          {
            expect: (request) => {
              expect(resultText(request, 0)).toMatchObject({
                toolUseId: 'd1',
                isError: true,
                content: 'Rejected: user rejected it: not now',
              });
              expect(resultText(request, 1)).toMatchObject({ toolUseId: 'd2' });
            },
            text: 'could not write: the user said not now',
          },
        ],
      },
    });
    test.legion.tools.register(writeNoteTool(test.root));
    const asked: ApprovalView[][] = [];
    test.legion.attachUser({
      medium: 'test',
      approve: async (requests, { approver }) => {
        expect(approver.id).toBe('user');
        asked.push(requests);
        return requests.map((request) => ({ id: request.id, decision: 'reject' as const, reason: 'not now' }));
      },
    });
    const result = await test.legion.send(await test.legion.sessions.create(), 'go');
    expect(result).toMatchObject({ status: 'success', reply: 'ok' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject([{ requester: 'developer', approver: 'user', tool: 'write_note', status: 'pending' }]);
    expect(existsSync(join(test.root, 'x.txt'))).toBe(false);
    test.assertScriptsDone();
  });

  it('with nobody to ask now, the whole chain pauses durably; answering later — after a reopen — resumes it to the end', async () => {
    const scripts = {
      coordinator: [
        { toolCalls: [{ id: 'c1', name: 'communicate', input: { to: 'developer', message: 'write it' } }] },
        {
          expect: (request: { messages: readonly Message[] }) => expect(resultText(request).content).toBe('done writing'),
          text: 'All done.',
        },
      ],
      developer: [{ toolCalls: [{ id: 'd1', name: 'write_note', input: { path: 'later.txt', text: 'later' } }] }, { text: 'done writing' }],
    };
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator'), agentParticipant('developer', { delegation: 'none' })],
      entryAgent: 'coordinator',
      scripts,
    });
    test.legion.tools.register(writeNoteTool(test.root));
    const session = await test.legion.sessions.create();
    const paused = await test.legion.send(session, 'go');
    expect(paused.status).toBe('paused');
    const requests = paused.status === 'paused' ? paused.requests : [];
    expect(requests).toMatchObject([{ requester: 'developer', approver: 'user', tool: 'write_note' }]);
    // A new message to a paused conversation is refused with what to do about it.
    await expect(test.legion.send(session, 'hello?')).rejects.toThrow(/paused until an approval is answered: apr_.*legion approvals/);
    test.legion.close();

    const reopened = test.reopen();
    reopened.tools.register(writeNoteTool(test.root));
    const again = await reopened.sessions.get(session.id);
    expect((await again.approvals.list({ status: 'pending' })).map((view) => view.id)).toEqual([requests[0]!.id]);
    const outcome = await again.answerApprovals([{ id: requests[0]!.id, decision: 'approve' }], 'user');
    expect(outcome).toMatchObject({
      status: 'answered',
      resumed: [{ status: 'success', reply: 'All done.', conversationId: 'user__coordinator' }],
    });
    expect(readFileSync(join(test.root, 'later.txt'), 'utf8')).toBe('later');
    test.assertScriptsDone();
    reopened.close();
  });

  it('a resumed turn has the delegation stack its fresh turn had: the same chain of waiting participants (what depth limits count), not the sender twice', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator'), agentParticipant('developer', { delegation: 'none' })],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          {
            toolCalls: [{ id: 'c1', name: 'communicate', input: { to: 'developer', message: 'write it' } }],
            usage: { inputTokens: 10, outputTokens: 1 },
          },
          { text: 'All done.', usage: { inputTokens: 10, outputTokens: 1 } },
        ],
        developer: [
          {
            toolCalls: [{ id: 'd1', name: 'write_note', input: { path: 'n.txt', text: 'n' } }],
            usage: { inputTokens: 10, outputTokens: 1 },
          },
          { text: 'done writing', usage: { inputTokens: 10, outputTokens: 1 } },
        ],
      },
    });
    test.legion.tools.register(writeNoteTool(test.root));
    const chains = (legion: typeof test.legion) => {
      const seen: string[] = [];
      legion.events.on('turn:start', (event) => seen.push(`${event.participantId}: ${event.chain.join(' > ')}`));
      return seen;
    };
    const fresh = chains(test.legion);
    const session = await test.legion.sessions.create();
    expect((await test.legion.send(session, 'go')).status).toBe('paused');
    expect(fresh).toEqual(['coordinator: user', 'developer: user > coordinator']);
    await test.legion.close();

    const reopened = test.reopen();
    reopened.tools.register(writeNoteTool(test.root));
    const resumed = chains(reopened);
    const again = await reopened.sessions.get(session.id);
    const [request] = await again.approvals.list({ status: 'pending' });
    expect(await again.answerApprovals([{ id: request!.id, decision: 'approve' }], 'user')).toMatchObject({
      resumed: [{ status: 'success', reply: 'All done.' }],
    });
    expect(resumed).toEqual(fresh);
    // Every model call, before and after the restart, counts toward the user's and the coordinator's totals once.
    expect((await again.usage()).byParticipant['coordinator']!.withDelegates.inputTokens).toBe(40);
    expect((await again.usage()).byParticipant['user']!.withDelegates.inputTokens).toBe(40);
    test.assertScriptsDone();
    await reopened.close();
  });

  it('tracks and answers approvals of parallel delegates independently', async () => {
    let ids: string[] = [];
    test = createTestLegion({
      participants: [
        userParticipant(),
        { ...agentParticipant('coordinator'), approvalAuthority: '*' } as never,
        agentParticipant('alpha', { delegation: 'none' }),
        agentParticipant('beta', { delegation: 'none' }),
      ],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          {
            toolCalls: [
              { id: 'a', name: 'communicate', input: { to: 'alpha', message: 'write a' } },
              { id: 'b', name: 'communicate', input: { to: 'beta', message: 'write b' } },
            ],
          },
          (request) => {
            ids = lastContent(request).flatMap((block) => (block.type === 'tool_result' ? approvalIds(block.content) : []));
            expect(ids).toHaveLength(2);
            return { toolCalls: [{ name: 'approval_response', input: { decisions: [{ id: ids[0]!, decision: 'approve' }] } }] };
          },
          (request) => {
            expect(resultText(request).content).toBe('coordinator__alpha replied: a written');
            return {
              toolCalls: [
                { name: 'approval_response', input: { decisions: [{ id: ids[1]!, decision: 'reject', reason: 'b is not needed' }] } },
              ],
            };
          },
          { expect: (request) => expect(resultText(request).content).toBe('coordinator__beta replied: b skipped'), text: 'finished' },
        ],
        alpha: [{ toolCalls: [{ name: 'write_note', input: { path: 'a.txt', text: 'a' } }] }, { text: 'a written' }],
        beta: [
          { toolCalls: [{ name: 'write_note', input: { path: 'b.txt', text: 'b' } }] },
          { expect: (request) => expect(resultText(request).content).toBe('Rejected by coordinator: b is not needed'), text: 'b skipped' },
        ],
      },
    });
    test.legion.tools.register(writeNoteTool(test.root));
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'go')).toMatchObject({ status: 'success', reply: 'finished' });
    expect(existsSync(join(test.root, 'a.txt'))).toBe(true);
    expect(existsSync(join(test.root, 'b.txt'))).toBe(false);
    // The delegates run in parallel: whose request was logged first is not the test's to decide.
    expect((await session.approvals.list()).map((view) => [view.requester, view.status]).sort()).toEqual([
      ['alpha', 'approved'],
      ['beta', 'rejected'],
    ]);
    test.assertScriptsDone();
  });

  it('an approval_response naming an unknown or answered request, or from someone without authority, changes nothing', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator'), agentParticipant('developer', { delegation: 'none' })],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [{ toolCalls: [{ name: 'communicate', input: { to: 'developer', message: 'write' } }] }],
        developer: [{ toolCalls: [{ name: 'write_note', input: { path: 'n.txt', text: 'n' } }] }],
      },
    });
    test.legion.tools.register(writeNoteTool(test.root));
    const session = await test.legion.sessions.create();
    const paused = await test.legion.send(session, 'go');
    const id = paused.status === 'paused' ? paused.requests[0]!.id : '';
    expect(id).toMatch(/^apr_/);

    const unknown = await session.answerApprovals([{ id: 'apr_nope', decision: 'approve' }], 'user');
    expect(unknown).toMatchObject({ status: 'error' });
    expect(unknown.status === 'error' && unknown.error).toContain(`There is no approval request "apr_nope" (pending: ${id})`);
    const noAuthority = await session.answerApprovals([{ id, decision: 'approve' }], 'coordinator');
    expect(noAuthority.status === 'error' && noAuthority.error).toContain(
      `coordinator has no authority to approve developer's write_note (${id}); user decides.`,
    );
    const mixed = await session.answerApprovals(
      [
        { id, decision: 'approve' },
        { id: 'apr_nope', decision: 'approve' },
      ],
      'user',
    );
    expect(mixed).toMatchObject({ status: 'error' });
    expect((await session.approvals.list({ status: 'pending' })).map((view) => view.id)).toEqual([id]);
    expect(existsSync(join(test.root, 'n.txt'))).toBe(false);

    const rejected = await session.answerApprovals([{ id, decision: 'reject', reason: 'no' }], 'user');
    expect(rejected.status).toBe('answered');
    const twice = await session.answerApprovals([{ id, decision: 'approve' }], 'user');
    expect(twice.status === 'error' && twice.error).toMatch(new RegExp(`${id} was already rejected by user at `));
  });

  it('nobody decides their own request, and an agent decides only what was addressed to it', async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        // Authority that covers its own id, and a peer with authority over it: neither may bypass the user here.
        { ...agentParticipant('coordinator'), approvalAuthority: [{ requester: '*', tools: ['*'] }] } as never,
        {
          ...agentParticipant('developer', { delegation: 'none' }),
          approvalAuthority: [{ requester: 'developer', tools: ['*'] }],
        } as never,
      ],
      entryAgent: 'developer',
      scripts: { developer: [{ toolCalls: [{ name: 'write_note', input: { path: 'n.txt', text: 'n' } }] }] },
    });
    test.legion.tools.register(writeNoteTool(test.root));
    const session = await test.legion.sessions.create();
    const paused = await test.legion.send(session, 'go', { to: 'developer' });
    expect(paused.status).toBe('paused');
    const request = paused.status === 'paused' ? paused.requests[0]! : undefined;
    expect(request).toMatchObject({ requester: 'developer', approver: 'user' });

    // From a side conversation, through the tool the model would use.
    const own = await test.legion.executeTool(
      'approval_response',
      { decisions: [{ id: request!.id, decision: 'approve' }] },
      { as: 'developer', session },
    );
    expect(own.status === 'error' && own.error).toContain(
      `developer asked for ${request!.id} and cannot decide its own request; user decides.`,
    );
    const peer = await session.answerApprovals([{ id: request!.id, decision: 'approve' }], 'coordinator');
    expect(peer.status === 'error' && peer.error).toContain(`${request!.id} is addressed to user, not to coordinator; user decides.`);
    expect((await session.approvals.list({ status: 'pending' })).map((view) => view.id)).toEqual([request!.id]);
    expect(existsSync(join(test.root, 'n.txt'))).toBe(false);
  });

  it('"always allow" from the user lets the same agent use the tool again without asking', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('solo', { delegation: 'none' })],
      scripts: {
        solo: [
          { toolCalls: [{ name: 'write_note', input: { path: '1.txt', text: '1' } }] },
          { toolCalls: [{ name: 'write_note', input: { path: '2.txt', text: '2' } }] },
          { text: 'both' },
        ],
      },
    });
    test.legion.tools.register(writeNoteTool(test.root));
    let asked = 0;
    test.legion.attachUser({
      medium: 'test',
      approve: async (requests) => {
        asked++;
        return requests.map((request) => ({ id: request.id, decision: 'approve' as const, always: true }));
      },
    });
    expect(await test.legion.send(await test.legion.sessions.create(), 'go', { to: 'solo' })).toMatchObject({ reply: 'both' });
    expect(asked).toBe(1);
    expect(existsSync(join(test.root, '2.txt'))).toBe(true);
  });
});
