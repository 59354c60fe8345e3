import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Message } from '../kernel/message.js';
import { Legion } from '../Legion.js';
import { ScriptedProvider, writeNoteTool } from '../testing/index.js';

/** Written by an older Legion (approval records version 1) and never changed: see write-workspace-v1.mjs. */
const FIXTURE = fileURLToPath(new URL('./__fixtures__/workspace-v1', import.meta.url));
const NESTED = '20261125-192632-0b3898';
const DEEP = '20261125-192632-9074e5';

const lastResult = (request: { messages: readonly Message[] }) => {
  const block = request.messages.at(-1)!.content[0];
  if (block?.type !== 'tool_result') throw new Error(`expected a tool_result, got ${JSON.stringify(block)}`);
  return block;
};

describe('a workspace written by an older Legion, paused on an approval', () => {
  let root: string;
  let legion: Legion | undefined;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-v1-'));
    cpSync(FIXTURE, root, { recursive: true });
  });
  afterEach(async () => {
    await legion?.close();
    legion = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  function open(scripts: Record<string, ConstructorParameters<typeof ScriptedProvider>[0]>): Record<string, ScriptedProvider> {
    legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
    const providers: Record<string, ScriptedProvider> = {};
    for (const [id, script] of Object.entries(scripts)) legion.providers.useFor(id, (providers[id] = new ScriptedProvider(script, id)));
    legion.tools.register(writeNoteTool(root));
    return providers;
  }

  it("user → coordinator → developer: still paused; the user approves, the developer's call runs and the reply travels back up", async () => {
    const providers = open({
      developer: [
        {
          expect: (request) => expect(lastResult(request)).toMatchObject({ toolUseId: 'd1', content: 'wrote note.txt' }),
          text: 'note written',
        },
      ],
      coordinator: [
        {
          expect: (request) => expect(lastResult(request)).toMatchObject({ toolUseId: 'c1', content: 'note written' }),
          text: 'Done: the note is written.',
        },
      ],
    });
    const session = await legion!.sessions.get(NESTED);
    expect(await session.approvals.list()).toMatchObject([
      { id: 'apr_8f4c0db9463a', requester: 'developer', approver: 'user', tool: 'write_note', status: 'pending' },
    ]);
    await expect(session.send({ from: 'user', to: 'coordinator', message: 'status?' })).rejects.toThrow(
      /paused until an approval is answered: apr_8f4c0db9463a/,
    );

    const outcome = await session.answerApprovals([{ id: 'apr_8f4c0db9463a', decision: 'approve' }], 'user');
    expect(outcome).toMatchObject({
      status: 'answered',
      resumed: [{ status: 'success', reply: 'Done: the note is written.', conversationId: 'user__coordinator' }],
    });
    expect(readFileSync(join(root, 'note.txt'), 'utf8')).toBe('from the nested session');
    Object.values(providers).forEach((provider) => provider.assertDone());
  });

  it('the recovered chain still stops a cycle: the resumed developer may not message the coordinator waiting on it', async () => {
    const developerFile = join(root, '.legion/collective/participants/developer.json');
    writeFileSync(developerFile, JSON.stringify({ ...JSON.parse(readFileSync(developerFile, 'utf8')), delegation: ['coordinator'] }));
    const providers = open({
      developer: [
        { toolCalls: [{ id: 'd2', name: 'communicate', input: { to: 'coordinator', message: 'is this right?' } }] },
        {
          expect: (request) =>
            expect(lastResult(request)).toMatchObject({
              toolUseId: 'd2',
              isError: true,
              content: expect.stringMatching(
                /"coordinator" is already working on this request \(chain: user → coordinator → developer → coordinator\)/,
              ),
            }),
          text: 'note written',
        },
      ],
      coordinator: [{ text: 'Done.' }],
    });
    const session = await legion!.sessions.get(NESTED);
    const outcome = await session.answerApprovals([{ id: 'apr_8f4c0db9463a', decision: 'approve' }], 'user');
    expect(outcome).toMatchObject({ status: 'answered', resumed: [{ status: 'success', reply: 'Done.' }] });
    Object.values(providers).forEach((provider) => provider.assertDone());
  });

  it('user → lead → coordinator → developer: the chain is recovered, so a new request in the resumed turn reaches the lead, who answers it', async () => {
    // Authority given after the pause: the old request stays the user's; the next one must find the lead up the recovered chain.
    const leadFile = join(root, '.legion/collective/participants/lead.json');
    writeFileSync(
      leadFile,
      JSON.stringify({
        ...JSON.parse(readFileSync(leadFile, 'utf8')),
        approvalAuthority: [{ requester: 'developer', tools: ['write_*'] }],
      }),
    );
    let leadApproval = '';
    const providers = open({
      developer: [
        {
          expect: (request) => expect(lastResult(request)).toMatchObject({ toolUseId: 'd3', content: 'wrote second.txt' }),
          toolCalls: [{ id: 'd4', name: 'write_note', input: { path: 'third.txt', text: 'three' } }],
        },
        {
          expect: (request) => expect(lastResult(request)).toMatchObject({ toolUseId: 'd4', content: 'wrote third.txt' }),
          text: 'wrote second.txt and third.txt',
        },
      ],
      coordinator: [
        {
          expect: (request) => expect(lastResult(request)).toMatchObject({ toolUseId: 'c3', content: 'wrote second.txt and third.txt' }),
          text: 'Both notes are written.',
        },
      ],
      lead: [
        (request) => {
          const result = lastResult(request);
          expect(result.toolUseId).toBe('l2');
          expect(result.content).toMatch(
            /^approval_required: .*\n- apr_\w+: developer wants to run write_note \{"path":"third.txt","text":"three"\}/,
          );
          leadApproval = /apr_\w+/.exec(result.content)![0];
          return {
            toolCalls: [{ id: 'l3', name: 'approval_response', input: { decisions: [{ id: leadApproval, decision: 'approve' }] } }],
          };
        },
        {
          expect: (request) =>
            expect(lastResult(request)).toMatchObject({ toolUseId: 'l3', content: 'lead__coordinator replied: Both notes are written.' }),
          text: 'Second note done.',
        },
      ],
    });
    const session = await legion!.sessions.get(DEEP);
    expect(await session.approvals.list({ status: 'pending' })).toMatchObject([
      { id: 'apr_e6a9d3019abb', requester: 'developer', approver: 'user' },
    ]);
    const starts: string[] = [];
    legion!.events.on('turn:start', (event) => starts.push(`${event.participantId}: ${event.chain.join(' > ')}`));
    const approvalsFile = join(root, '.legion/sessions', DEEP, 'approvals.jsonl');
    const written = readFileSync(approvalsFile, 'utf8');

    const outcome = await session.answerApprovals([{ id: 'apr_e6a9d3019abb', decision: 'approve' }], 'user');
    expect(outcome).toMatchObject({
      status: 'answered',
      resumed: [{ status: 'success', reply: 'Second note done.', conversationId: 'user__lead' }],
    });
    expect((await session.approvals.list()).find((view) => view.id === leadApproval)).toMatchObject({
      requester: 'developer',
      approver: 'lead',
      status: 'approved',
      decidedBy: 'lead',
    });
    expect(readFileSync(join(root, 'second.txt'), 'utf8')).toBe('two');
    expect(readFileSync(join(root, 'third.txt'), 'utf8')).toBe('three');
    // Each resumed turn has the chain its turn had when it paused; the lead's approval resumes the coordinator's turn from there.
    expect(starts).toEqual([
      'lead: user',
      'coordinator: user > lead',
      'developer: user > lead > coordinator',
      'coordinator: user > lead',
      'developer: user > lead > coordinator',
    ]);
    // Migrated when read: the older lines stay as they were written, new records follow them.
    const after = readFileSync(approvalsFile, 'utf8');
    expect(after.startsWith(written)).toBe(true);
    expect(
      after
        .slice(written.length)
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { kind: string; version: number }),
    ).toMatchObject([
      { kind: 'decision', version: 1 },
      {
        kind: 'request',
        version: 2,
        frames: [{ participantId: 'user' }, { participantId: 'lead', toolUseId: 'l2' }, { participantId: 'coordinator', toolUseId: 'c3' }],
      },
      { kind: 'decision', version: 1 },
    ]);
    Object.values(providers).forEach((provider) => provider.assertDone());
  });
});
