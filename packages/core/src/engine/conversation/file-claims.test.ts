import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LegionEvents } from '../../kernel/events/event-types.js';
import type { Message, ToolResultBlock } from '../../kernel/message.js';
import type { ParticipantInput } from '../../team/index.js';
import { FileSessionBackend } from '../../store/file/FileSessionBackend.js';
import { agentParticipant, createTestLegion, runNodeChild, userParticipant, type ChildRun, type TestLegion } from '../../testing/index.js';

const FIXTURES = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
/** A safety net against a hung child, far above what any step needs; never a timing assertion. */
const CHILD_WAIT_MS = 20_000;

/** An agent allowed to write files without asking (the conflict, not an approval, is what these tests are about). */
function writer(id: string): ParticipantInput {
  return { ...agentParticipant(id, { delegation: 'none' }), policies: { file_write: 'auto' } } as ParticipantInput;
}

function lastToolResult(messages: readonly Message[]): ToolResultBlock {
  const block = messages.at(-1)!.content.find((part) => part.type === 'tool_result');
  if (!block || block.type !== 'tool_result') throw new Error('no tool result in the last message');
  return block;
}

/** A promise and the function that resolves it: one model waits for another to reach a point. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('file claims: parallel agents never overwrite each other', () => {
  let test: TestLegion;
  const children: ChildRun[] = [];
  afterEach(() => {
    for (const run of children.splice(0)) run.child.kill('SIGKILL');
    test?.cleanup();
  });

  it('of two parallel delegates writing one file, one write happens; the other is refused naming the holder, and the human is told', async () => {
    const firstWrote = gate();
    const secondRefused = gate();
    const conflicts: Array<LegionEvents['claim:conflict']> = [];
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('lead'), writer('alpha'), writer('beta')],
      entryAgent: 'lead',
      scripts: {
        lead: [
          {
            toolCalls: [
              { id: 'to_alpha', name: 'communicate', input: { to: 'alpha', message: 'Write the release notes to NOTES.md' } },
              { id: 'to_beta', name: 'communicate', input: { to: 'beta', message: 'Put the changelog in NOTES.md' } },
            ],
          },
          { text: 'both answered' },
        ],
        alpha: [
          { toolCalls: [{ id: 'alpha_write', name: 'file_write', input: { path: 'NOTES.md', content: 'release notes by alpha\n' } }] },
          async (request) => {
            expect(lastToolResult(request.messages).content).toMatch(/^(Created|Overwrote) /);
            firstWrote.open();
            // Still in its turn (so still holding NOTES.md) until beta has tried to write it.
            await secondRefused.opened;
            return { text: 'alpha wrote NOTES.md' };
          },
        ],
        beta: [
          async () => {
            await firstWrote.opened;
            return { toolCalls: [{ id: 'beta_write', name: 'file_write', input: { path: 'NOTES.md', content: 'changelog by beta\n' } }] };
          },
          (request) => {
            const result = lastToolResult(request.messages);
            expect(result.isError).toBe(true);
            expect(result.content).toContain('NOTES.md is claimed by alpha');
            expect(result.content).toContain('Write the release notes to NOTES.md');
            expect(result.content).toContain('communicate');
            secondRefused.open();
            return { text: 'beta could not write NOTES.md' };
          },
        ],
      },
    });
    test.legion.events.on('claim:conflict', (event) => conflicts.push(event));

    const reply = await test.legion.send(await test.legion.sessions.create(), 'Write the notes, both of you');

    expect(reply).toMatchObject({ status: 'success', reply: 'both answered' });
    test.assertScriptsDone();
    expect(readFileSync(join(test.root, 'NOTES.md'), 'utf8')).toBe('release notes by alpha\n');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({
      participantId: 'beta',
      tool: 'file_write',
      path: 'NOTES.md',
      holder: { participantId: 'alpha', conversationId: 'lead__alpha', doing: 'Write the release notes to NOTES.md' },
    });
    // Claims end with the turn: nothing is held once the turns have ended.
    const other = new FileSessionBackend({ root: test.root });
    expect(await other.fileClaims.list()).toEqual([]);
    await other.close();
  });

  it('claims the files a plan declares (todo_write claim): another agent cannot write them while the turn runs', async () => {
    const declared = gate();
    const refused = gate();
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('lead'), writer('alpha'), writer('beta')],
      entryAgent: 'lead',
      scripts: {
        lead: [
          {
            toolCalls: [
              { name: 'communicate', input: { to: 'alpha', message: 'Plan the release' } },
              { name: 'communicate', input: { to: 'beta', message: 'Tidy the changelog' } },
            ],
          },
          { text: 'done' },
        ],
        alpha: [
          {
            toolCalls: [
              {
                name: 'todo_write',
                input: { items: [{ id: '1', text: 'Rewrite CHANGELOG.md', status: 'in_progress' }], claim: ['CHANGELOG.md'] },
              },
            ],
          },
          async (request) => {
            expect(lastToolResult(request.messages).isError).not.toBe(true);
            declared.open();
            await refused.opened;
            return { text: 'planned' };
          },
        ],
        beta: [
          async () => {
            await declared.opened;
            return { toolCalls: [{ name: 'file_write', input: { path: 'CHANGELOG.md', content: 'tidied\n' } }] };
          },
          (request) => {
            expect(lastToolResult(request.messages)).toMatchObject({
              isError: true,
              content: expect.stringContaining('CHANGELOG.md is claimed by alpha'),
            });
            refused.open();
            return { text: 'left it' };
          },
        ],
      },
    });
    expect(await test.legion.send(await test.legion.sessions.create(), 'Release')).toMatchObject({ status: 'success', reply: 'done' });
    test.assertScriptsDone();
    expect(existsSync(join(test.root, 'CHANGELOG.md'))).toBe(false);
  });

  it('lets the next turn write a file whose earlier holder turn ended, and a delegate write a file its caller claimed', async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        { ...agentParticipant('lead', { delegation: ['alpha'] }), policies: { file_write: 'auto' } } as ParticipantInput,
        writer('alpha'),
        writer('beta'),
      ],
      entryAgent: 'lead',
      scripts: {
        lead: [
          { toolCalls: [{ name: 'file_write', input: { path: 'plan.md', content: 'plan by lead\n' } }] },
          { toolCalls: [{ name: 'communicate', input: { to: 'alpha', message: 'Finish the plan' } }] },
          { text: 'planned' },
        ],
        alpha: [
          { toolCalls: [{ name: 'file_write', input: { path: 'plan.md', content: 'plan finished by alpha\n' } }] },
          (request) => {
            expect(lastToolResult(request.messages).content).toMatch(/^(Created|Overwrote) /);
            return { text: 'finished' };
          },
        ],
        beta: [
          { toolCalls: [{ name: 'file_write', input: { path: 'plan.md', content: 'plan by beta\n' } }] },
          (request) => {
            expect(lastToolResult(request.messages).content).toMatch(/^(Created|Overwrote) /);
            return { text: 'rewrote it' };
          },
        ],
      },
    });
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'Plan it')).toMatchObject({ status: 'success', reply: 'planned' });
    expect(readFileSync(join(test.root, 'plan.md'), 'utf8')).toBe('plan finished by alpha\n');
    // lead's turn ended: beta, another agent, may write it now.
    expect(await test.legion.send(session, 'Rewrite the plan', { to: 'beta' })).toMatchObject({ status: 'success', reply: 'rewrote it' });
    expect(readFileSync(join(test.root, 'plan.md'), 'utf8')).toBe('plan by beta\n');
    test.assertScriptsDone();
  });

  it('does not let a dead holder block: a process killed with SIGKILL while its turn holds a file', async () => {
    test = createTestLegion({
      participants: [userParticipant(), writer('worker'), writer('other')],
      entryAgent: 'worker',
      scripts: {
        other: [
          { toolCalls: [{ name: 'file_write', input: { path: 'shared.txt', content: 'by other\n' } }] },
          (request) => {
            expect(lastToolResult(request.messages).content).toMatch(/^(Created|Overwrote) /);
            return { text: 'written' };
          },
        ],
      },
    });
    const session = await test.legion.sessions.create();
    const run = runNodeChild(join(FIXTURES, 'write-then-hang.mjs'), [test.root, session.id], { waitLimitMs: CHILD_WAIT_MS });
    children.push(run);
    await run.waitFor((line) => line === 'TOOL_STARTED', 'TOOL_STARTED');
    // While the child lives, its claim holds.
    const claims = (await new FileSessionBackend({ root: test.root }).fileClaims.list()).map((claim) => [claim.path, claim.participantId]);
    expect(claims).toEqual([['shared.txt', 'worker']]);

    run.child.kill('SIGKILL');
    expect(await run.exited).toEqual({ code: null, signal: 'SIGKILL' });

    expect(await test.legion.send(session, 'Write shared.txt', { to: 'other' })).toMatchObject({ status: 'success', reply: 'written' });
    expect(readFileSync(join(test.root, 'shared.txt'), 'utf8')).toBe('by other\n');
    test.assertScriptsDone();
  });
});
